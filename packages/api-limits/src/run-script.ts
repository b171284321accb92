import { createHash } from 'node:crypto';
import type { RedisClient } from '@cowrie/core';

const shaOf = new Map<string, string>();

/**
 * Runs a Lua script by its SHA (EVALSHA), so the script's text is not sent
 * and hashed on every call; a server that does not have it (first use, a
 * restarted or failed-over Redis) answers NOSCRIPT and gets it once by EVAL,
 * which also caches it there.
 *
 * Not ioredis's defineCommand: a command defined while an auto-pipeline is
 * open is missing from that pipeline, and the batch's answers come apart,
 * crashing the process (ioredis#1931). EVALSHA and EVAL are built-in
 * commands, safe in any pipeline.
 */
export async function runScript(redis: RedisClient, lua: string, numberOfKeys: number, keysAndArgs: Array<string | number>): Promise<unknown> {
  let sha = shaOf.get(lua);
  if (!sha) shaOf.set(lua, (sha = createHash('sha1').update(lua).digest('hex')));
  try {
    return await redis.evalsha(sha, numberOfKeys, ...keysAndArgs);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return redis.eval(lua, numberOfKeys, ...keysAndArgs);
    throw err;
  }
}

import type { TRedis } from '@cowrie/core';

type ScriptRunner = (...keysAndArgs: Array<string | number>) => Promise<unknown>;
const definedOn = new WeakMap<TRedis, Set<string>>();

/**
 * Runs a Lua script by its SHA (EVALSHA, loaded on first use; ioredis's
 * defineCommand), so the script's text is not sent and hashed on every call.
 */
export function runScript(redis: TRedis, name: string, lua: string, numberOfKeys: number, keysAndArgs: Array<string | number>): Promise<unknown> {
  let defined = definedOn.get(redis);
  if (!defined) definedOn.set(redis, (defined = new Set()));
  const command = `cowrie_${name}_${numberOfKeys}`;
  if (!defined.has(command)) {
    redis.defineCommand(command, { numberOfKeys, lua });
    defined.add(command);
  }
  return (redis as unknown as Record<string, ScriptRunner>)[command]!(...keysAndArgs);
}

import type { RedisClient } from '@cowrie/core';
import { runScript } from './run-script';

// INCR, with the TTL set by the first attempt, as one step; returns the count
// and the milliseconds left in the window.
const TAKE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

const GIVE_BACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

export interface AttemptTaken {
  /** Attempts counted in the window, this one included. */
  count: number;
  limit: number;
  allowed: boolean;
  /** Whole seconds until the window ends (at least 1). */
  retryAfterSeconds: number;
}

/**
 * Counts one attempt in a window that starts at the first attempt counted and
 * lasts `windowSeconds` (not aligned to the clock): a guesser cannot double
 * the limit by straddling a clock boundary, and a window never ends early
 * under a burst. Attempts whose outcome does not count (a right password) are
 * given back with giveBackAttempt.
 */
export async function takeAttempt(redis: RedisClient, opts: { key: string; limit: number; windowSeconds: number }): Promise<AttemptTaken> {
  const [count, ttlMs] = (await runScript(redis, TAKE_SCRIPT, 1, [opts.key, String(opts.windowSeconds * 1000)])) as [number, number];
  return { count, limit: opts.limit, allowed: count <= opts.limit, retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
}

/** Gives back an attempt taken with takeAttempt, if its window still runs. */
export async function giveBackAttempt(redis: RedisClient, key: string): Promise<void> {
  await runScript(redis, GIVE_BACK_SCRIPT, 1, [key]);
}

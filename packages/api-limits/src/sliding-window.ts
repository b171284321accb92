import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@cowrie/core';
import { runScript } from './run-script';

// Every counter under its limit over the last window, then the hit recorded in
// all of them, as one step. A counter is a sorted set of its hits' times (ms):
// hits that left the window are dropped first, so a counter never holds more
// than its limit within any window, however the hits fall around a clock
// boundary. KEYS: the counters. ARGV: now (ms), the window (ms), this hit's
// member, then each counter's limit. Returns 0, or the 1-based index of the
// first full counter (nothing recorded) and the ms until it takes one more.
const HIT_ALL_SCRIPT = `
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local limit = tonumber(ARGV[i + 3])
  local count = redis.call('ZCARD', key)
  if count >= limit then
    if limit <= 0 then return {i, window} end
    local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    return {i, tonumber(freeing[2]) + window - now}
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
end
return 0`;

export type SlidingWindowsHit<K extends string> = { kind: 'allowed' } | { kind: 'refused'; full: K; retryAfterSeconds: number };

export interface SlidingWindowsOptions<K extends string> {
  counters: ReadonlyArray<{ name: K; key: string; limit: number }>;
  windowSeconds: number;
  /** Current time in ms; injectable for tests. */
  now?: number;
}

/**
 * Counts one hit in several sliding windows of the same length, all or none,
 * in one atomic step: a counter allows at most its limit within any
 * `windowSeconds` (not per clock-aligned window, which lets a burst across a
 * boundary reach twice the limit). When any counter is full nothing is
 * counted, `full` names the first (in the order given) and
 * `retryAfterSeconds` says when it takes one more. Concurrent callers can
 * never push a counter past its limit. On Redis Cluster the keys must share a
 * hash slot (give them one `{hash tag}`).
 */
export async function hitSlidingWindowsTogether<K extends string>(redis: RedisClient, opts: SlidingWindowsOptions<K>): Promise<SlidingWindowsHit<K>> {
  const step = slidingWindowsStep(opts);
  return step.outcome(await runScript(redis, step.lua, step.keys.length, [...step.keys, ...step.args]));
}

/**
 * hitSlidingWindowsTogether as parts, for a script that runs it beside other
 * work in one command: `lua` is a script body over KEYS and ARGV (it returns 0
 * when the hit was counted, else a table), `keys` and `args` what to call it
 * with, `outcome` what its answer means.
 */
export function slidingWindowsStep<K extends string>(opts: SlidingWindowsOptions<K>) {
  const now = opts.now ?? Date.now();
  const { counters } = opts;
  return {
    lua: HIT_ALL_SCRIPT,
    keys: counters.map((c) => c.key),
    // The member tells apart hits of one millisecond.
    args: [String(now), String(opts.windowSeconds * 1000), `${now}:${randomBytes(6).toString('hex')}`, ...counters.map((c) => String(c.limit))],
    outcome: (answer: unknown): SlidingWindowsHit<K> => {
      if (!Array.isArray(answer)) return { kind: 'allowed' };
      const [full, waitMs] = answer.map(Number) as [number, number];
      return { kind: 'refused', full: counters[full - 1]!.name, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
  };
}

import type { RedisClient } from '@cowrie/core';
import { runScript } from './run-script';

// INCR and EXPIRE in one step, so a crash between them cannot leave a counter
// that never expires. One key per call keeps it valid on Redis Cluster.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

// HIT_SCRIPT's count, and the value of one more key read in the same step
// (an API key's revocation epoch beside its budget): one command, not two.
// Two keys, so on Redis Cluster only where both share a hash slot.
const HIT_AND_READ_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('GET', KEYS[2])}`;

/** The window `now` falls in: its start (the counter's suffix) and its end, in Unix seconds. */
function windowAt(windowSeconds: number, now: number | undefined) {
  const nowSeconds = Math.floor((now ?? Date.now()) / 1000);
  const windowStart = Math.floor(nowSeconds / windowSeconds) * windowSeconds;
  const resetAt = windowStart + windowSeconds;
  return { nowSeconds, windowStart, resetAt, retryAfterSeconds: Math.max(1, resetAt - nowSeconds) };
}

export interface FixedWindowHit {
  /** Requests allowed in the window. */
  limit: number;
  /** Hits counted in this window, this one included. */
  count: number;
  /** Hits left after this one, never below 0. */
  remaining: number;
  /** Unix seconds at which the window ends. */
  resetAt: number;
  allowed: boolean;
  /** Whole seconds until the window ends (at least 1). */
  retryAfterSeconds: number;
}

export interface HitFixedWindowOptions {
  /** Counter name; the window start is appended. */
  key: string;
  limit: number;
  windowSeconds: number;
  /** Current time in ms; injectable for tests. */
  now?: number;
}

/**
 * Counts one hit in a clock-aligned fixed window: the window starts at
 * floor(now / window) * window (docs/design.md) and its counter lives in Redis, so
 * every replica shares it.
 */
export async function hitFixedWindow(redis: RedisClient, opts: HitFixedWindowOptions): Promise<FixedWindowHit> {
  const { windowStart, resetAt, retryAfterSeconds } = windowAt(opts.windowSeconds, opts.now);
  const count = Number(await runScript(redis, HIT_SCRIPT, 1, [`${opts.key}:${windowStart}`, String(opts.windowSeconds + 5)]));
  return hitOf(opts.limit, count, resetAt, retryAfterSeconds);
}

/**
 * hitFixedWindow, and the value of `readKey` (null when it has none) read in
 * the same Redis command. On Redis Cluster both keys must share a hash slot.
 */
export async function hitFixedWindowAndRead(
  redis: RedisClient,
  opts: HitFixedWindowOptions,
  readKey: string,
): Promise<{ hit: FixedWindowHit; read: string | null }> {
  const { windowStart, resetAt, retryAfterSeconds } = windowAt(opts.windowSeconds, opts.now);
  const [count, read] = (await runScript(redis, HIT_AND_READ_SCRIPT, 2, [`${opts.key}:${windowStart}`, readKey, String(opts.windowSeconds + 5)])) as [
    number,
    string | null | undefined,
  ];
  return { hit: hitOf(opts.limit, Number(count), resetAt, retryAfterSeconds), read: read ?? null };
}

const hitOf = (limit: number, count: number, resetAt: number, retryAfterSeconds: number): FixedWindowHit => ({
  limit,
  count,
  remaining: Math.max(0, limit - count),
  resetAt,
  allowed: count <= limit,
  retryAfterSeconds,
});

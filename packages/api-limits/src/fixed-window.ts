import type { TRedis } from '@cowrie/core';

// INCR and EXPIRE in one step, so a crash between them cannot leave a counter
// that never expires. One key per call keeps it valid on Redis Cluster.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

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
 * floor(now / window) * window (DESIGN.md) and its counter lives in Redis, so
 * every replica shares it.
 */
export async function hitFixedWindow(redis: TRedis, opts: HitFixedWindowOptions): Promise<FixedWindowHit> {
  const nowSeconds = Math.floor((opts.now ?? Date.now()) / 1000);
  const windowStart = Math.floor(nowSeconds / opts.windowSeconds) * opts.windowSeconds;
  const resetAt = windowStart + opts.windowSeconds;
  const count = Number(await redis.eval(HIT_SCRIPT, 1, `${opts.key}:${windowStart}`, String(opts.windowSeconds + 5)));
  return {
    limit: opts.limit,
    count,
    remaining: Math.max(0, opts.limit - count),
    resetAt,
    allowed: count <= opts.limit,
    retryAfterSeconds: Math.max(1, resetAt - nowSeconds),
  };
}

/** Reads a window's count without counting a hit. */
export async function peekFixedWindow(redis: TRedis, opts: Omit<HitFixedWindowOptions, 'limit'>): Promise<number> {
  const nowSeconds = Math.floor((opts.now ?? Date.now()) / 1000);
  const windowStart = Math.floor(nowSeconds / opts.windowSeconds) * opts.windowSeconds;
  return Number((await redis.get(`${opts.key}:${windowStart}`)) ?? 0);
}

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

// Every counter under its limit, then all counted, as one step: returns 0, or
// the 1-based index of the first counter already at its limit (nothing counted).
// ARGV: the TTL, then each counter's limit.
const HIT_ALL_SCRIPT = `
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then return i end
end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('EXPIRE', key, ARGV[1]) end
end
return 0`;

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

export type FixedWindowsHit<K extends string> = { kind: 'allowed' } | { kind: 'refused'; full: K; retryAfterSeconds: number };

/**
 * Counts one hit in several clock-aligned windows of the same length, all or
 * none, in one atomic step: when any counter is already at its limit nothing
 * is counted and `full` names the first such counter (in the order given).
 * Concurrent callers can never push a counter past its limit. On Redis
 * Cluster the keys must share a hash slot (give them one `{hash tag}`).
 */
export async function hitFixedWindowsTogether<K extends string>(redis: RedisClient, opts: FixedWindowsOptions<K>): Promise<FixedWindowsHit<K>> {
  const step = fixedWindowsStep(opts);
  return step.outcome(await runScript(redis, step.lua, step.keys.length, [...step.keys, ...step.args]));
}

export interface FixedWindowsOptions<K extends string> {
  counters: ReadonlyArray<{ name: K; key: string; limit: number }>;
  windowSeconds: number;
  now?: number;
}

/**
 * hitFixedWindowsTogether as parts, for a script that runs it beside other
 * work in one command: `lua` is a script body over KEYS and ARGV (it returns
 * 0 or the 1-based index of the full counter), `keys` and `args` what to call
 * it with, `outcome` what its answer means.
 */
export function fixedWindowsStep<K extends string>(opts: FixedWindowsOptions<K>) {
  const { windowStart, retryAfterSeconds } = windowAt(opts.windowSeconds, opts.now);
  const { counters } = opts;
  return {
    lua: HIT_ALL_SCRIPT,
    keys: counters.map((c) => `${c.key}:${windowStart}`),
    args: [String(opts.windowSeconds + 5), ...counters.map((c) => String(c.limit))],
    outcome: (answer: unknown): FixedWindowsHit<K> => {
      const full = Number(answer);
      return full === 0 ? { kind: 'allowed' } : { kind: 'refused', full: counters[full - 1]!.name, retryAfterSeconds };
    },
  };
}

import type { Config, RedisClient } from '@cowrie/core';
import { runScript } from '@cowrie/api-limits';
import { isGuardedChannel, type VerificationChannel } from './channels';
import { hitVerificationLimits, verificationLimitsStep, type LimitConfig, type LimitOutcome } from './limits';

/**
 * The guard against SMS pumping. Per workspace and destination prefix (the
 * country code and the first four digits of the national number), Redis keeps
 * the sms and voice starts and the verified checks of the last hour in
 * per-minute buckets (one hash per prefix, sliding by the minute). A prefix
 * with at least VERIFY_FRAUD_GUARD_MIN_STARTS starts in the hour whose
 * conversion (verified ÷ started) is below VERIFY_FRAUD_GUARD_MIN_CONVERSION
 * is blocking: with VERIFY_FRAUD_GUARD=block its new sms and voice starts are
 * refused before anything is counted or sent; with `monitor` they are only
 * reported. It lifts as old starts slide out of the hour, as checks verify,
 * or when an owner clears it.
 */
export type FraudGuardConfig = Pick<Config, 'REDIS_KEY_PREFIX' | 'VERIFY_FRAUD_GUARD' | 'VERIFY_FRAUD_GUARD_MIN_STARTS' | 'VERIFY_FRAUD_GUARD_MIN_CONVERSION'>;

/** Minutes in the guard's window. */
const WINDOW_MINUTES = 60;

/**
 * A phone destination's prefix as the guard counts it: `+234`, the first
 * three national digits, a space, the fourth (`+2348031234567` → `+234803 1`).
 * Null for anything that is not a normalised Nigerian number.
 */
export function destinationPrefix(destination: string): string | null {
  const match = /^\+234(\d{3})(\d)\d{6}$/.exec(destination);
  return match ? `+234${match[1]} ${match[2]}` : null;
}

// Both keys of a workspace share its hash tag, so one script reaches them on Redis Cluster.
const prefixKey = (c: FraudGuardConfig, workspaceUid: string, prefix: string) =>
  `${c.REDIS_KEY_PREFIX}verify:fg:{ws${workspaceUid}}:p:${prefix.replace(' ', '')}`;
const indexKey = (c: FraudGuardConfig, workspaceUid: string) => `${c.REDIS_KEY_PREFIX}verify:fg:{ws${workspaceUid}}:prefixes`;

// KEYS: the prefix's hash, the workspace's index of prefixes.
// ARGV: op (start | unstart | verified | peek), now (ms), min starts, min conversion, refuse (1|0), the prefix.
// Fields are s<minute> (starts) and v<minute> (verified); minutes older than the window are dropped on writes.
// Answers {allowed 1|0, blocking 1|0, starts, verified, retry after seconds}.
const GUARD_SCRIPT = `
local op = ARGV[1]
local now = tonumber(ARGV[2])
local minStarts = tonumber(ARGV[3])
local minConversion = tonumber(ARGV[4])
local minute = math.floor(now / 60000)
local oldest = minute - ${WINDOW_MINUTES - 1}
local writes = op ~= 'peek'
local raw = redis.call('HGETALL', KEYS[1])
local s, v = {}, {}
local S, V = 0, 0
for i = 1, #raw, 2 do
  local m = tonumber(string.sub(raw[i], 2))
  local n = tonumber(raw[i + 1])
  if m == nil or m < oldest then
    if writes then redis.call('HDEL', KEYS[1], raw[i]) end
  elseif string.sub(raw[i], 1, 1) == 's' then
    s[m] = (s[m] or 0) + n
    S = S + n
  else
    v[m] = (v[m] or 0) + n
    V = V + n
  end
end
local function blocking(starts, verified) return starts >= minStarts and verified < minConversion * starts end
local function retryAfter()
  local rs, rv = S, V
  for m = oldest, minute do
    rs = rs - (s[m] or 0)
    rv = rv - (v[m] or 0)
    if not blocking(rs, rv) then return math.max(1, math.ceil(((m + ${WINDOW_MINUTES}) * 60000 - now) / 1000)) end
  end
  return ${WINDOW_MINUTES * 60}
end
local ttl = ${(WINDOW_MINUTES + 1) * 60}
if op == 'verified' then
  redis.call('HINCRBY', KEYS[1], 'v' .. minute, 1)
  redis.call('EXPIRE', KEYS[1], ttl)
  V = V + 1
  return {1, blocking(S, V) and 1 or 0, S, V, 0}
end
if op == 'unstart' then
  if (s[minute] or 0) > 0 then
    redis.call('HINCRBY', KEYS[1], 's' .. minute, -1)
    S = S - 1
  end
  return {1, blocking(S, V) and 1 or 0, S, V, 0}
end
local isBlocking = blocking(S, V)
if op == 'peek' then return {isBlocking and 0 or 1, isBlocking and 1 or 0, S, V, isBlocking and retryAfter() or 0} end
if isBlocking and ARGV[5] == '1' then return {0, 1, S, V, retryAfter()} end
redis.call('HINCRBY', KEYS[1], 's' .. minute, 1)
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ${WINDOW_MINUTES * 60_000})
redis.call('EXPIRE', KEYS[2], ttl)
return {1, isBlocking and 1 or 0, S + 1, V, isBlocking and retryAfter() or 0}`;

type Op = 'start' | 'unstart' | 'verified' | 'peek';

interface ScriptAnswer {
  allowed: boolean;
  blocking: boolean;
  starts: number;
  verified: number;
  retryAfterSeconds: number;
}

/** GUARD_SCRIPT's keys and arguments for `op`. */
function guardKeysAndArgs(config: FraudGuardConfig, op: Op, workspaceUid: string, prefix: string, now: number) {
  return {
    keys: [prefixKey(config, workspaceUid, prefix), indexKey(config, workspaceUid)],
    args: [op, now, config.VERIFY_FRAUD_GUARD_MIN_STARTS, config.VERIFY_FRAUD_GUARD_MIN_CONVERSION, config.VERIFY_FRAUD_GUARD === 'block' ? 1 : 0, prefix],
  };
}

async function run(redis: RedisClient, config: FraudGuardConfig, op: Op, workspaceUid: string, prefix: string, now: number): Promise<ScriptAnswer> {
  const { keys, args } = guardKeysAndArgs(config, op, workspaceUid, prefix, now);
  const answer = (await runScript(redis, GUARD_SCRIPT, 2, [...keys, ...args])) as number[];
  const [allowed, blocking, starts, verified, retryAfterSeconds] = answer.map(Number) as [number, number, number, number, number];
  return { allowed: allowed === 1, blocking: blocking === 1, starts, verified, retryAfterSeconds };
}

export type GuardOutcome =
  /** Not a channel or destination the guard looks at, or the guard is off: nothing counted. */
  | { kind: 'not_guarded' }
  /** Counted. `blocking`: the prefix is blocking, and the guard (monitor) let it through. */
  | { kind: 'counted'; prefix: string; blocking: boolean; release: () => Promise<void> }
  | { kind: 'refused'; prefix: string; retryAfterSeconds: number };

/**
 * Judges and counts one start (before the other limits, before anything is
 * sent): refused (not counted) while its prefix is blocking and the guard
 * blocks; otherwise counted as one start of the prefix. `release` takes the
 * count back when the start goes no further (another limit refused it).
 */
export async function guardVerificationStart(
  redis: RedisClient,
  config: FraudGuardConfig,
  input: { workspaceUid: string; channel: VerificationChannel; destination: string; now?: number },
): Promise<GuardOutcome> {
  if (config.VERIFY_FRAUD_GUARD === 'off' || !isGuardedChannel(input.channel)) return { kind: 'not_guarded' };
  const prefix = destinationPrefix(input.destination);
  if (!prefix) return { kind: 'not_guarded' };
  const now = input.now ?? Date.now();
  const answer = await run(redis, config, 'start', input.workspaceUid, prefix, now);
  if (!answer.allowed) return { kind: 'refused', prefix, retryAfterSeconds: answer.retryAfterSeconds };
  return {
    kind: 'counted',
    prefix,
    blocking: answer.blocking,
    release: async () => {
      await run(redis, config, 'unstart', input.workspaceUid, prefix, now);
    },
  };
}

// GUARD_SCRIPT's start and the verification limits (slidingWindowsStep) as one
// step: the guard judges and counts first; a start it refuses reaches no
// limit; a start the limits refuse is taken back from the guard (its
// `unstart`) in the same step. KEYS: the guard's two, then the limits'.
// ARGV: the guard's six, then the limits'. Answers the guard's five and the
// limits' answer (0, or the full counter's index and wait; 0 when the guard refused).
const guardAndLimitsScript = (limitsLua: string) => (combined.get(limitsLua) ?? combined.set(limitsLua, guardAndLimits(limitsLua)).get(limitsLua))!;
const combined = new Map<string, string>();
const guardAndLimits = (limitsLua: string) => `
local function guard(KEYS, ARGV)
${GUARD_SCRIPT}
end
local function limits(KEYS, ARGV)
${limitsLua}
end
local guardKeys = {KEYS[1], KEYS[2]}
local g = guard(guardKeys, {ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]})
if g[1] == 0 then return {g[1], g[2], g[3], g[4], g[5], 0} end
local limitKeys, limitArgs = {}, {}
for i = 3, #KEYS do limitKeys[#limitKeys + 1] = KEYS[i] end
for i = 7, #ARGV do limitArgs[#limitArgs + 1] = ARGV[i] end
local full = limits(limitKeys, limitArgs)
if full ~= 0 then guard(guardKeys, {'unstart', ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]}) end
return {g[1], g[2], g[3], g[4], g[5], full}`;

/** What guardAndLimitVerificationStart found. */
export type StartAdmission =
  /** The fraud guard refused it (counted nowhere). */
  | { kind: 'guard_refused'; prefix: string; retryAfterSeconds: number }
  /**
   * The guard let it through (`guarded`: the prefix it counted, and whether
   * that prefix is blocking in monitor; null when the guard does not look at
   * it), and what the limits said: refused, the start is counted nowhere.
   */
  | { kind: 'judged'; guarded: { prefix: string; blocking: boolean } | null; limit: LimitOutcome };

/**
 * guardVerificationStart, then hitVerificationLimits, with a start the limits
 * refuse taken back from the guard (its release): the same outcomes as the
 * three calls, in one Redis command (the guard's and the limits' keys share
 * the workspace's hash tag, so one script holds them on Redis Cluster too).
 */
export async function guardAndLimitVerificationStart(
  redis: RedisClient,
  config: FraudGuardConfig & LimitConfig,
  input: { workspaceUid: string; channel: VerificationChannel; destination: string; now?: number },
): Promise<StartAdmission> {
  const prefix = config.VERIFY_FRAUD_GUARD !== 'off' && isGuardedChannel(input.channel) ? destinationPrefix(input.destination) : null;
  if (!prefix) return { kind: 'judged', guarded: null, limit: await hitVerificationLimits(redis, config, input) };
  const now = input.now ?? Date.now();
  const limits = verificationLimitsStep(config, { ...input, now });
  const guard = guardKeysAndArgs(config, 'start', input.workspaceUid, prefix, now);
  const answer = (await runScript(redis, guardAndLimitsScript(limits.lua), 2 + limits.keys.length, [
    ...guard.keys,
    ...limits.keys,
    ...guard.args,
    ...limits.args,
  ])) as unknown[];
  const [allowed, blocking, , , retryAfterSeconds] = answer.map(Number) as [number, number, number, number, number];
  if (allowed !== 1) return { kind: 'guard_refused', prefix, retryAfterSeconds };
  return { kind: 'judged', guarded: { prefix, blocking: blocking === 1 }, limit: limits.outcome(answer[5]) };
}

/** Counts a check that verified an sms or voice code toward its prefix's conversion (it may lift a block). */
export async function recordGuardedVerification(
  redis: RedisClient,
  config: FraudGuardConfig,
  input: { workspaceUid: string; channel: VerificationChannel | string; destination: string; now?: number },
): Promise<void> {
  if (config.VERIFY_FRAUD_GUARD === 'off' || !isGuardedChannel(input.channel as VerificationChannel)) return;
  const prefix = destinationPrefix(input.destination);
  if (prefix) await run(redis, config, 'verified', input.workspaceUid, prefix, input.now ?? Date.now());
}

/** One prefix the guard counted in the last hour. */
export interface GuardedPrefix {
  prefix: string;
  starts: number;
  verified: number;
  /** verified ÷ starts, or null without starts. */
  conversion: number | null;
  /** Its new sms and voice starts are refused (block) or reported (monitor). */
  blocking: boolean;
  /** While blocking: seconds until it lifts if nothing else happens. */
  retry_after_seconds: number | null;
}

/** The prefixes a workspace started sms or voice codes to in the last hour, blocking ones first. */
export async function listGuardedPrefixes(redis: RedisClient, config: FraudGuardConfig, workspaceUid: string, now = Date.now()): Promise<GuardedPrefix[]> {
  const prefixes = await redis.zrangebyscore(indexKey(config, workspaceUid), now - WINDOW_MINUTES * 60_000, '+inf');
  const rows = await Promise.all(
    prefixes.map(async (prefix): Promise<GuardedPrefix> => {
      const a = await run(redis, config, 'peek', workspaceUid, prefix, now);
      return {
        prefix,
        starts: a.starts,
        verified: a.verified,
        conversion: a.starts > 0 ? Math.round((a.verified / a.starts) * 1000) / 1000 : null,
        blocking: a.blocking,
        retry_after_seconds: a.blocking ? a.retryAfterSeconds : null,
      };
    }),
  );
  return rows
    .filter((r) => r.starts > 0 || r.verified > 0)
    .sort((a, b) => Number(b.blocking) - Number(a.blocking) || b.starts - a.starts || a.prefix.localeCompare(b.prefix));
}

/**
 * Clears a prefix: its counts of the hour are dropped, so it is judged again
 * from its next starts. Answers what it held (null when the guard held
 * nothing for it).
 */
export async function clearGuardedPrefix(
  redis: RedisClient,
  config: FraudGuardConfig,
  input: { workspaceUid: string; prefix: string; now?: number },
): Promise<GuardedPrefix | null> {
  const now = input.now ?? Date.now();
  const before = (await listGuardedPrefixes(redis, config, input.workspaceUid, now)).find((p) => p.prefix === input.prefix) ?? null;
  await redis
    .multi()
    .del(prefixKey(config, input.workspaceUid, input.prefix))
    .zrem(indexKey(config, input.workspaceUid), input.prefix)
    .exec();
  return before;
}

/** A prefix as the clear route takes it: `+234803 1` (the space optional). */
export function parseGuardPrefix(raw: string): string | null {
  const match = /^\+234(\d{3}) ?(\d)$/.exec(raw.trim());
  return match ? `+234${match[1]} ${match[2]}` : null;
}

/** How often a monitored prefix's low conversion is logged, per workspace and prefix, by one process. */
export const GUARD_REPORT_EVERY_MS = 60_000;

/**
 * Whether a start on a blocking prefix in `monitor` mode should be logged
 * now: once per workspace and prefix every `everyMs` in this process, with the
 * starts left unlogged since the last line, rather than a line per start (a
 * pumping attack on one prefix, which is what the guard watches for, would
 * otherwise write a log line per request; the `would_refuse` metric still
 * counts every one).
 */
export function guardReportLimiter(
  everyMs = GUARD_REPORT_EVERY_MS,
): (workspaceUid: string, prefix: string, now?: number) => { report: false } | { report: true; unreported: number } {
  const last = new Map<string, { at: number; unreported: number }>();
  return (workspaceUid, prefix, now = Date.now()) => {
    const key = `${workspaceUid} ${prefix}`;
    const seen = last.get(key);
    if (seen && now - seen.at < everyMs) {
      seen.unreported += 1;
      return { report: false };
    }
    // Forget prefixes not seen for a window, so the map holds only the ones being reported.
    if (last.size > 10_000) for (const [k, v] of last) if (now - v.at >= everyMs) last.delete(k);
    last.set(key, { at: now, unreported: 0 });
    return { report: true, unreported: seen?.unreported ?? 0 };
  };
}

import { sha256Hex, type Config, type RedisClient } from '@cowrie/core';
import { hitSlidingWindowsTogether, slidingWindowsStep, type SlidingWindowsHit } from '@cowrie/api-limits';

export type LimitReason = 'destination' | 'business';

export type LimitOutcome = { kind: 'allowed' } | { kind: 'refused'; reason: LimitReason; retryAfterSeconds: number };

export type LimitConfig = Pick<Config, 'REDIS_KEY_PREFIX' | 'VERIFY_RATE_DEST_LIMIT' | 'VERIFY_RATE_BIZ_LIMIT' | 'VERIFY_RATE_WINDOW_SECONDS'>;

// Both counters of a workspace share one hash tag, so they can be counted in
// one script on Redis Cluster. The workspace is named by its workspaceUid (the
// row id alone repeats on a new database). The destination is hashed: Redis
// key names should not carry phone numbers or emails.
const destinationKey = (c: LimitConfig, workspaceUid: string, destination: string) =>
  `${c.REDIS_KEY_PREFIX}verify:rl:{ws${workspaceUid}}:dest:${sha256Hex(destination).slice(0, 32)}`;
const businessKey = (c: LimitConfig, workspaceUid: string) => `${c.REDIS_KEY_PREFIX}verify:rl:{ws${workspaceUid}}:biz`;

/**
 * Counts one verification start against the per-destination and per-business
 * limits over a sliding window (at most the limit within any
 * VERIFY_RATE_WINDOW_SECONDS, a burst across a clock boundary included), in
 * Redis so every replica shares the count. Both
 * count every channel, and both run before anything is sent. The two are
 * checked and counted as one atomic step: a request either limit refuses is
 * counted in neither, and racing requests can never take a counter past its
 * limit. The destination is counted within the workspace, so one business
 * cannot use up another's budget for a shared customer.
 */
export async function hitVerificationLimits(
  redis: RedisClient,
  config: LimitConfig,
  input: { workspaceUid: string; destination: string; now?: number },
): Promise<LimitOutcome> {
  return limitOutcome(await hitSlidingWindowsTogether<LimitReason>(redis, limitCounters(config, input)));
}

function limitCounters(config: LimitConfig, input: { workspaceUid: string; destination: string; now?: number }) {
  return {
    counters: [
      { name: 'destination' as const, key: destinationKey(config, input.workspaceUid, input.destination), limit: config.VERIFY_RATE_DEST_LIMIT },
      { name: 'business' as const, key: businessKey(config, input.workspaceUid), limit: config.VERIFY_RATE_BIZ_LIMIT },
    ],
    windowSeconds: config.VERIFY_RATE_WINDOW_SECONDS,
    now: input.now,
  };
}

const limitOutcome = (hit: SlidingWindowsHit<LimitReason>): LimitOutcome =>
  hit.kind === 'allowed' ? hit : { kind: 'refused', reason: hit.full, retryAfterSeconds: hit.retryAfterSeconds };

/**
 * hitVerificationLimits as parts, for the fraud guard's script to run in the
 * same command (guardAndLimitVerificationStart): its keys share the
 * workspace's hash tag with the guard's.
 */
export function verificationLimitsStep(config: LimitConfig, input: { workspaceUid: string; destination: string; now?: number }) {
  const step = slidingWindowsStep<LimitReason>(limitCounters(config, input));
  return { ...step, outcome: (answer: unknown) => limitOutcome(step.outcome(answer)) };
}

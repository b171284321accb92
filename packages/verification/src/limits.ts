import { sha256Hex, type TConfig, type TRedis } from '@cowrie/core';
import { hitFixedWindow, peekFixedWindow } from '@cowrie/api-limits';

export type TLimitReason = 'destination' | 'business';

export type TLimitOutcome = { allowed: true } | { allowed: false; reason: TLimitReason; retryAfterSeconds: number };

type LimitConfig = Pick<TConfig, 'REDIS_KEY_PREFIX' | 'VERIFY_RATE_DEST_LIMIT' | 'VERIFY_RATE_BIZ_LIMIT' | 'VERIFY_RATE_WINDOW_SECONDS'>;

// The destination is hashed: Redis key names should not carry phone numbers or emails.
const destinationKey = (c: LimitConfig, workspaceId: number, destination: string) =>
  `${c.REDIS_KEY_PREFIX}verify:rl:dest:${workspaceId}:${sha256Hex(destination).slice(0, 32)}`;
const businessKey = (c: LimitConfig, workspaceId: number) => `${c.REDIS_KEY_PREFIX}verify:rl:biz:${workspaceId}`;

/**
 * Counts one verification start against the per-destination and per-business
 * limits (interface: Limits), in Redis so every replica shares the count. Both
 * count every channel, and both run before anything is sent. A request the
 * counters already refuse is not counted (peek first); two racing requests at
 * the boundary are settled by the atomic INCR, so the limit is never exceeded.
 * The destination is counted within the workspace, so one business cannot use
 * up another's budget for a shared customer.
 */
export async function hitVerificationLimits(
  redis: TRedis,
  config: LimitConfig,
  input: { workspaceId: number; destination: string; now?: number },
): Promise<TLimitOutcome> {
  const windowSeconds = config.VERIFY_RATE_WINDOW_SECONDS;
  const dest = { key: destinationKey(config, input.workspaceId, input.destination), limit: config.VERIFY_RATE_DEST_LIMIT };
  const biz = { key: businessKey(config, input.workspaceId), limit: config.VERIFY_RATE_BIZ_LIMIT };
  const nowMs = input.now ?? Date.now();
  const retryAfter = () => {
    const nowSeconds = Math.floor(nowMs / 1000);
    return Math.max(1, Math.floor(nowSeconds / windowSeconds) * windowSeconds + windowSeconds - nowSeconds);
  };

  const [destCount, bizCount] = await Promise.all([
    peekFixedWindow(redis, { key: dest.key, windowSeconds, now: nowMs }),
    peekFixedWindow(redis, { key: biz.key, windowSeconds, now: nowMs }),
  ]);
  if (destCount >= dest.limit) return { allowed: false, reason: 'destination', retryAfterSeconds: retryAfter() };
  if (bizCount >= biz.limit) return { allowed: false, reason: 'business', retryAfterSeconds: retryAfter() };

  const destHit = await hitFixedWindow(redis, { ...dest, windowSeconds, now: nowMs });
  if (!destHit.allowed) return { allowed: false, reason: 'destination', retryAfterSeconds: destHit.retryAfterSeconds };
  const bizHit = await hitFixedWindow(redis, { ...biz, windowSeconds, now: nowMs });
  if (!bizHit.allowed) return { allowed: false, reason: 'business', retryAfterSeconds: bizHit.retryAfterSeconds };
  return { allowed: true };
}

import type { RedisClient } from '@cowrie/core';
import { hitFixedWindow, type FixedWindowHit } from './fixed-window';

/** The API's request budget window: fixed 60 seconds per API key. */
export const PUBLIC_API_WINDOW_SECONDS = 60;

/**
 * Counts one request against an API key's budget. The counter is keyed by the
 * key's random lookup id, not its row id, which a new database would give to
 * another key while Redis still holds this one's count.
 */
export function hitPublicApiBudget(
  redis: RedisClient,
  opts: { keyPrefix: string; apiKeyLookupId: string; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:key:${opts.apiKeyLookupId}`,
    limit: opts.limit,
    windowSeconds: PUBLIC_API_WINDOW_SECONDS,
    now: opts.now,
  });
}

/** The X-RateLimit-* headers of a /v1 response. */
export function rateLimitHeaders(hit: FixedWindowHit): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(hit.limit),
    'X-RateLimit-Remaining': String(hit.remaining),
    'X-RateLimit-Reset': String(hit.resetAt),
  };
}

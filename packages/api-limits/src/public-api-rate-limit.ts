import type { TRedis } from '@cowrie/core';
import { hitFixedWindow, type FixedWindowHit } from './fixed-window';

/** The interface's request budget window: fixed 60 seconds per API key. */
export const PUBLIC_API_WINDOW_SECONDS = 60;

export function hitPublicApiBudget(
  redis: TRedis,
  opts: { keyPrefix: string; apiKeyId: number; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:key:${opts.apiKeyId}`,
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

import type { RedisClient } from '@cowrie/core';
import { clientAddressGroup } from './client-address';
import { hitFixedWindow, hitFixedWindowAndRead, type FixedWindowHit } from './fixed-window';

/** The API's request budget window: fixed 60 seconds per API key. */
export const PUBLIC_API_WINDOW_SECONDS = 60;

/**
 * Counts one request against an API key's budget. The counter is keyed by the
 * key's random lookup id, not its row id, which a new database would give to
 * another key while Redis still holds this one's count.
 */
export function hitPublicApiBudget(redis: RedisClient, opts: PublicApiBudgetOptions): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, budgetWindow(opts));
}

/**
 * hitPublicApiBudget, and the value of `readKey` read in the same Redis
 * command (the API-key epoch: one command per request, not two). On Redis
 * Cluster `readKey` lies in another slot, so use hitPublicApiBudget there.
 */
export function hitPublicApiBudgetAndRead(redis: RedisClient, opts: PublicApiBudgetOptions, readKey: string) {
  return hitFixedWindowAndRead(redis, budgetWindow(opts), readKey);
}

interface PublicApiBudgetOptions {
  keyPrefix: string;
  apiKeyLookupId: string;
  limit: number;
  now?: number;
}

const budgetWindow = (opts: PublicApiBudgetOptions) => ({
  key: `${opts.keyPrefix}rl:key:${opts.apiKeyLookupId}`,
  limit: opts.limit,
  windowSeconds: PUBLIC_API_WINDOW_SECONDS,
  now: opts.now,
});

/**
 * Counts one /v1 request refused for its key (none, malformed, unknown,
 * revoked) against its client address's budget of such requests
 * (PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT per window, an IPv6 address by its
 * /64): the 401 carries its X-RateLimit-* headers like every /v1 answer, and
 * an address past it gets the 429 instead of looking up more keys' answers.
 */
export function hitUnauthenticatedApiBudget(
  redis: RedisClient,
  opts: { keyPrefix: string; clientAddress: string; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:unauthenticated:${clientAddressGroup(opts.clientAddress)}`,
    limit: opts.limit,
    windowSeconds: PUBLIC_API_WINDOW_SECONDS,
    now: opts.now,
  });
}

/** Sets the X-RateLimit-* headers of a response through `set` (its setHeader), one call per header: no object per request. */
export function setRateLimitHeaders(hit: FixedWindowHit, set: (name: string, value: string) => unknown): void {
  set('X-RateLimit-Limit', String(hit.limit));
  set('X-RateLimit-Remaining', String(hit.remaining));
  set('X-RateLimit-Reset', String(hit.resetAt));
}

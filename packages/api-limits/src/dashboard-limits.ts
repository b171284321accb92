import { sha256Hex, type RedisClient } from '@cowrie/core';
import { hitFixedWindow, type FixedWindowHit } from './fixed-window';

/** Dashboard budgets count in fixed 60-second windows, like the /v1 request budget. */
export const DASHBOARD_WINDOW_SECONDS = 60;

/**
 * Counts one request against a dashboard session's budget
 * (DASHBOARD_RATE_LIMIT). A session is its token: the counter is keyed by the
 * token's hash, never the token, and never a row id alone.
 */
export function hitDashboardBudget(
  redis: RedisClient,
  opts: { keyPrefix: string; sessionToken: string; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:session:${sha256Hex(opts.sessionToken).slice(0, 32)}`,
    limit: opts.limit,
    windowSeconds: DASHBOARD_WINDOW_SECONDS,
    now: opts.now,
  });
}

/**
 * Counts one test ping of a webhook endpoint (WEBHOOK_TEST_RATE_LIMIT per
 * endpoint per window): each ping is a real POST to someone's server. Keyed by
 * the endpoint's id and creation time, which a new database cannot repeat.
 */
export function hitWebhookTestBudget(
  redis: RedisClient,
  opts: { keyPrefix: string; endpoint: { id: number; createdAt: Date }; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:webhook-test:${opts.endpoint.id}-${opts.endpoint.createdAt.getTime()}`,
    limit: opts.limit,
    windowSeconds: DASHBOARD_WINDOW_SECONDS,
    now: opts.now,
  });
}

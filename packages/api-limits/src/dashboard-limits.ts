import { sha256Hex, type RedisClient } from '@cowrie/core';
import { hitFixedWindow, type FixedWindowHit } from './fixed-window';
import { runScript } from './run-script';

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

// The next free send time of an endpoint's recover schedule (ms), moved past the slots taken.
const RESERVE_PACE_LUA = `
local now = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local finish = start + count * interval
redis.call('SET', KEYS[1], finish, 'PX', finish - now + 60000)
return start - now`;

/** When a recover's dispatches go out: the first after `startDelayMs`, then one every `intervalMs`. */
export interface RecoverPace {
  startDelayMs: number;
  intervalMs: number;
}

/**
 * Reserves `count` send slots on an endpoint's recover schedule, at most
 * `ratePerSecond` (WEBHOOK_RECOVER_RATE_PER_SECOND): a second recover of the
 * same endpoint, from any replica, queues behind the first rather than
 * doubling the pace. Keyed like the test budget.
 */
export async function reserveWebhookRecoverPace(
  redis: RedisClient,
  opts: { keyPrefix: string; endpoint: { id: number; createdAt: Date }; count: number; ratePerSecond: number; now?: number },
): Promise<RecoverPace> {
  const intervalMs = Math.max(1, Math.ceil(1000 / opts.ratePerSecond));
  const key = `${opts.keyPrefix}webhook-recover-pace:${opts.endpoint.id}-${opts.endpoint.createdAt.getTime()}`;
  const startDelayMs = Number(await runScript(redis, RESERVE_PACE_LUA, 1, [key, opts.now ?? Date.now(), opts.count, intervalMs]));
  return { startDelayMs, intervalMs };
}

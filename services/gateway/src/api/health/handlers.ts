import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData } from '../../http/respond';
import { errorEnvelope, railsByMode } from '@cowrie/core';
import { createRailHealth } from '@cowrie/rails';
import type { healthSpecs } from './specs';

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** One dependency's state as /readyz shows it: never a raw error text (those go to the log). */
interface Check {
  ok: boolean;
  error?: string;
  /** Ready, but something an operator should look at. */
  warning?: string;
}

// Said once per process: /readyz is polled every few seconds.
let warnedUnknownPolicy = false;

// Redis answers a refused command with an error reply (ReplyError), not a lost connection.
const isReplyError = (err: unknown) => (err as Error | undefined)?.name === 'ReplyError';

/**
 * Checks the gateway depends on. Postgres and Redis must answer; Redis must
 * not evict keys (BullMQ loses jobs when it may: docs/design.md). Managed
 * Redis services (ElastiCache, Upstash, Memorystore) refuse CONFIG GET: the
 * policy is then unknown, reported as a warning, and readiness holds. What
 * failed and why goes to the log; the answer names only the dependency.
 */
export async function readiness(deps: Pick<GatewayDeps, 'db' | 'redis' | 'logger'>) {
  const checks: Record<string, Check> = {};
  const failed = (name: string, err: unknown, error: string) => {
    deps.logger.warn({ err, dependency: name }, 'readiness check failed');
    checks[name] = { ok: false, error };
  };
  await Promise.all([
    withTimeout(deps.db.$queryRaw`SELECT 1`, 2000)
      .then(() => {
        checks.postgres = { ok: true };
      })
      .catch((err: unknown) => failed('postgres', err, 'Postgres is not answering')),
    withTimeout(deps.redis.ping(), 2000)
      .then(() =>
        withTimeout(deps.redis.config('GET', 'maxmemory-policy') as Promise<unknown>, 2000).catch((err: unknown) => {
          if (isReplyError(err)) return null;
          throw err;
        }),
      )
      .then((reply) => {
        const policy = Array.isArray(reply) && reply.length >= 2 ? String(reply[1]) : null;
        if (policy === null) {
          if (!warnedUnknownPolicy)
            deps.logger.warn('Redis refuses CONFIG GET: its maxmemory-policy cannot be checked; it must be noeviction or BullMQ may lose jobs');
          warnedUnknownPolicy = true;
          checks.redis = { ok: true, warning: 'maxmemory-policy unknown (CONFIG GET refused); it must be noeviction' };
        } else {
          checks.redis = policy === 'noeviction' ? { ok: true } : { ok: false, error: `maxmemory-policy is ${policy}; BullMQ needs noeviction` };
        }
      })
      .catch((err: unknown) => failed('redis', err, 'Redis is not answering')),
  ]);
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export interface HealthOptions {
  /** True once the process is stopping: /readyz answers 503 so load balancers stop routing to it. */
  stopping?: () => boolean;
}

/**
 * A reader of the live payout rails' breakers (PAYOUT_RAILS, in order of
 * preference) as the API shows them; null with a single rail, which has no
 * breaker (there is nothing to fail over to).
 */
export function payoutRailStates(deps: Pick<GatewayDeps, 'config' | 'redis'>) {
  const { PAYOUT_RAILS, REDIS_KEY_PREFIX, PAYOUT_RAIL_COOLDOWN_MS, PAYOUT_RAIL_MAX_COOLDOWN_MS } = deps.config;
  const railHealth =
    PAYOUT_RAILS.length > 1
      ? createRailHealth({ redis: deps.redis, keyPrefix: REDIS_KEY_PREFIX, cooldownMs: PAYOUT_RAIL_COOLDOWN_MS, maxCooldownMs: PAYOUT_RAIL_MAX_COOLDOWN_MS })
      : null;
  return async () => {
    if (!railHealth) return null;
    const states = await railHealth.states(PAYOUT_RAILS);
    return states.map((s) => ({ rail: s.rail, state: s.state, failures: s.failures, open_until: s.openUntil }));
  };
}

/** The handlers of /healthz and /readyz (healthSpecs); /readyz answers 503 once `options.stopping` says so. */
export function createHealthHandlers(deps: GatewayDeps, options: HealthOptions = {}): HandlersOf<typeof healthSpecs> {
  const readRails = payoutRailStates(deps);
  // A rail's breaker is information, never a reason to be unready: another rail pays meanwhile.
  const payoutRails = async () => (await withTimeout(readRails(), 2000).catch(() => null)) ?? undefined;
  return {
    health: (_input, req, res) => sendData(req, res, 200, { status: 'ok' }),
    readiness: async (_input, req, res) => {
      if (options.stopping?.()) {
        res.status(503).json(errorEnvelope('not_ready', 'The gateway is stopping', req.id, { checks: { shutdown: { ok: false, error: 'stopping' } } }));
        return;
      }
      const { ready, checks } = await readiness(deps);
      if (ready) return sendData(req, res, 200, { status: 'ready', checks, rails: railsByMode(deps.config), payout_rails: await payoutRails() });
      res.status(503).json(errorEnvelope('not_ready', 'A dependency is not answering', req.id, { checks }));
    },
  };
}

import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData } from '../http/respond';
import { errorEnvelope } from '@cowrie/core';

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Checks the gateway depends on; shared by /readyz and the workers' readiness. */
export async function readiness(deps: Pick<GatewayDeps, 'db' | 'redis'>) {
  const checks: Record<string, { ok: boolean; error?: string }> = {};
  await Promise.all([
    withTimeout(deps.db.$queryRaw`SELECT 1`, 2000)
      .then(() => { checks.postgres = { ok: true }; })
      .catch((err: Error) => { checks.postgres = { ok: false, error: err.message }; }),
    withTimeout(deps.redis.config('GET', 'maxmemory-policy') as Promise<unknown>, 2000)
      .then((reply) => {
        const policy = Array.isArray(reply) ? String(reply[1]) : '';
        // BullMQ loses jobs when Redis may evict keys (docs/design.md).
        checks.redis = policy === 'noeviction' ? { ok: true } : { ok: false, error: `maxmemory-policy is ${policy || 'unknown'}; BullMQ needs noeviction` };
      })
      .catch((err: Error) => { checks.redis = { ok: false, error: err.message }; }),
  ]);
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

const ZChecks = z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional() }));

export interface HealthOptions {
  /** True once the process is stopping: /readyz answers 503 so load balancers stop routing to it. */
  stopping?: () => boolean;
}

export function registerHealthRoutes(app: RouteMount, deps: GatewayDeps, options: HealthOptions = {}) {
  app.route(
    {
      method: 'get',
      path: '/healthz',
      operationId: 'health',
      summary: 'Liveness: the process is up',
      tag: 'Operations',
      auth: { kind: 'none' },
      responses: { 200: { description: 'Up', data: z.object({ status: z.literal('ok') }) } },
    },
    (_input, req, res) => sendData(req, res, 200, { status: 'ok' }),
  );
  app.route(
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readiness',
      summary: 'Readiness: Postgres and Redis answer (and Redis will not evict BullMQ keys)',
      tag: 'Operations',
      auth: { kind: 'none' },
      responses: {
        200: { description: 'Ready', data: z.object({ status: z.literal('ready'), checks: ZChecks }) },
        503: { description: 'not_ready: a dependency is not answering, or the process is stopping (details.checks)' },
      },
    },
    async (_input, req, res) => {
      if (options.stopping?.()) {
        res.status(503).json(errorEnvelope('not_ready', 'The gateway is stopping', req.id, { checks: { shutdown: { ok: false, error: 'stopping' } } }));
        return;
      }
      const { ready, checks } = await readiness(deps);
      if (ready) return sendData(req, res, 200, { status: 'ready', checks });
      res.status(503).json(errorEnvelope('not_ready', 'A dependency is not answering', req.id, { checks }));
    },
  );
}

import type { Router } from 'express';
import type { GatewayDeps } from '../deps';
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
        // BullMQ loses jobs when Redis may evict keys (DESIGN.md).
        checks.redis = policy === 'noeviction' ? { ok: true } : { ok: false, error: `maxmemory-policy is ${policy || 'unknown'}; BullMQ needs noeviction` };
      })
      .catch((err: Error) => { checks.redis = { ok: false, error: err.message }; }),
  ]);
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export function registerHealthRoutes(app: Router, deps: GatewayDeps) {
  app.get('/healthz', (req, res) => sendData(req, res, 200, { status: 'ok' }));
  app.get('/readyz', async (req, res) => {
    const { ready, checks } = await readiness(deps);
    if (ready) return sendData(req, res, 200, { status: 'ready', checks });
    res.status(503).json(errorEnvelope('not_ready', 'A dependency is not answering', req.id, { checks }));
  });
}

// Scenario `channels`: authenticated GET /v1/channels (API-key auth against
// Postgres, the Redis rate-limit counter, the envelope) beside a bare express
// route in the same run: at saturation (50 connections) and open loop at
// RATE requests/s. Targets: ratio >= 0.5, p99 < 50 ms at 50 connections,
// gateway RSS < 200 MB; p99 < 10 ms at RATE.
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { createDb } from '@cowrie/db';
import { measureAgainstBareExpress, startBenchStack, type ScenarioResult } from '../lib';

/** The at-rate run's offered requests/s: a third or less of what this machine kind saturates at (2,800–6,600/s in runs here). */
const RATE = 1000;

export async function channels(): Promise<ScenarioResult> {
  const stack = await startBenchStack({
    name: 'cowrie_bench',
    services: [
      { service: 'gateway', listens: true, readyPath: '/healthz', env: { PUBLIC_API_RATE_LIMIT: '1000000000' } },
      { service: 'bench/baseline-server.ts', listens: true, readyPath: '/bare' },
    ],
  });
  const [gateway, bare] = stack.replicas;
  try {
    const { databaseUrl } = stack;
    const db = createDb({ databaseUrl, poolSize: 2 });
    const workspace = await createWorkspace(db, { name: 'Bench' });
    const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read'] });
    await db.$disconnect();

    const origin = gateway!.url!;
    const headers = { authorization: `Bearer ${key}` };
    const measured = await measureAgainstBareExpress({
      gateway: { url: `${origin}/v1/channels`, headers },
      atRate: { rate: RATE, origin, next: () => ({ method: 'GET', path: '/v1/channels', headers }) },
      barePort: Number(new URL(bare!.url!).port),
      connections: 50,
      durationSeconds: 10,
      databaseUrl,
    });
    return {
      scenario: 'channels',
      ...measured,
      peak_rss_mb: gateway!.process!.peakRssMb(),
    };
  } finally {
    await stack.close();
  }
}

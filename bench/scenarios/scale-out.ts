// Scenario `scale_out`: authenticated GET /v1/channels against one gateway,
// then against two gateway replicas sharing the database and Redis (the load
// split evenly between them, as a load balancer would). Reports the two
// replicas' requests per second with one gateway as the baseline: the ratio is
// what a second replica adds on this machine (the load generator, Postgres and
// Redis share its cores, so it is not the gain on separate machines).
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { createDb } from '@cowrie/db';
import { load, ratioOf, settleDatabase, startBenchStack, type ScenarioResult } from '../lib';

const CONNECTIONS = 50;
const DURATION_S = 10;

export async function scaleOut(): Promise<ScenarioResult> {
  const stack = await startBenchStack({
    name: 'cowrie_bench',
    services: [{ service: 'gateway', replicas: 2, listens: true, readyPath: '/healthz', env: { PUBLIC_API_RATE_LIMIT: '1000000000' } }],
  });
  const { databaseUrl } = stack;
  const ports = stack.urls('gateway').map((url) => Number(new URL(url).port));
  try {
    const db = createDb({ databaseUrl, poolSize: 2 });
    const workspace = await createWorkspace(db, { name: 'Bench' });
    const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read'] });
    await db.$disconnect();
    const target = (port: number, connections: number, durationSeconds: number) =>
      load({ url: `http://127.0.0.1:${port}/v1/channels`, headers: { authorization: `Bearer ${key}` }, connections, durationSeconds });

    // Warm both replicas (JIT, pools), then settle the database.
    await Promise.all(ports.map((port) => target(port, CONNECTIONS / 2, 5)));
    await settleDatabase(databaseUrl);

    const one = await target(ports[0]!, CONNECTIONS, DURATION_S);
    const both = await Promise.all(ports.map((port) => target(port, CONNECTIONS / 2, DURATION_S)));
    const failed = one.non2xx + both.reduce((n, r) => n + r.non2xx, 0);
    if (failed > 0) throw new Error(`${failed} responses were not 2xx`);
    const rps = both.reduce((n, r) => n + r.rps, 0);
    return {
      scenario: 'scale_out',
      rps,
      // Each replica served half the connections; the slower half's percentiles are the run's.
      p50_ms: Math.max(...both.map((r) => r.p50_ms)),
      p99_ms: Math.max(...both.map((r) => r.p99_ms)),
      baseline: 'one_gateway',
      baseline_rps: one.rps,
      baseline_p99_ms: one.p99_ms,
      ratio: ratioOf(rps, one.rps),
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      replicas: 2,
      peak_rss_mb: Math.max(...stack.replicas.map((g) => g.process!.peakRssMb())),
    };
  } finally {
    await stack.close();
  }
}

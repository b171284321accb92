// Scenario `scale_out`: authenticated GET /v1/channels against one gateway,
// then against two gateway replicas sharing the database and Redis (the load
// split evenly between them, as a load balancer would). Reports the two
// replicas' requests per second with one gateway as the baseline: the ratio is
// what a second replica adds on this machine (the load generator, Postgres and
// Redis share its cores, so it is not the gain on separate machines).
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { createDb } from '@cowrie/db';
import {
  benchRedisEnv,
  clearRedisPrefixes,
  freePort,
  freshDatabase,
  load,
  peakRssMb,
  ratioOf,
  settleDatabase,
  startProcess,
  stop,
  waitForHttp,
  type ScenarioResult,
} from '../lib';

const CONNECTIONS = 50;
const DURATION_S = 10;

export async function scaleOut(): Promise<ScenarioResult> {
  const databaseUrl = await freshDatabase('cowrie_bench');
  const db = createDb({ databaseUrl, poolSize: 2 });
  const workspace = await createWorkspace(db, { name: 'Bench' });
  const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read'] });
  await db.$disconnect();

  const ports = [await freePort(), await freePort()];
  const redisEnv = benchRedisEnv();
  const gateways = ports.map((port) =>
    startProcess('services/gateway/dist/main.js', {
      ...redisEnv,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      PUBLIC_API_RATE_LIMIT: '1000000000',
    }),
  );
  const target = (port: number, connections: number, durationSeconds: number) =>
    load({ url: `http://127.0.0.1:${port}/v1/channels`, headers: { authorization: `Bearer ${key}` }, connections, durationSeconds });
  try {
    for (const port of ports) await waitForHttp(`http://127.0.0.1:${port}/healthz`);
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
      peak_rss_mb: Math.max(...gateways.map((g) => peakRssMb(g.pid!))),
    };
  } finally {
    await Promise.all(gateways.map(stop));
    await clearRedisPrefixes(redisEnv);
  }
}

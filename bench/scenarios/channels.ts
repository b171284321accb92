// Scenario `channels`: authenticated GET /v1/channels (API-key auth against
// Postgres, the Redis rate-limit counter, the envelope) beside a bare express
// route in the same run. Targets: ratio >= 0.5, p99 < 50 ms at 50 connections,
// gateway RSS < 200 MB.
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { createDb } from '@cowrie/db';
import { freePort, freshDatabase, measureAgainstBareExpress, peakRssMb, startProcess, stop, waitForHttp, type ScenarioResult } from '../lib';

export async function channels(): Promise<ScenarioResult> {
  const databaseUrl = await freshDatabase('cowrie_bench');
  const db = createDb({ databaseUrl, poolSize: 2 });
  const workspace = await createWorkspace(db, { name: 'Bench' });
  const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read'] });
  await db.$disconnect();

  const [gatewayPort, barePort] = [await freePort(), await freePort()];
  const gateway = startProcess('services/gateway/dist/main.js', {
    DATABASE_URL: databaseUrl,
    PORT: String(gatewayPort),
    PUBLIC_API_RATE_LIMIT: '1000000000',
    REDIS_KEY_PREFIX: 'cowrie-bench:',
  });
  const bare = startProcess('bench/baseline-server.ts', { PORT: String(barePort) });
  try {
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${barePort}/bare`);
    const measured = await measureAgainstBareExpress({
      gateway: { url: `http://127.0.0.1:${gatewayPort}/v1/channels`, headers: { authorization: `Bearer ${key}` } },
      barePort,
      connections: 50,
      durationSeconds: 10,
      databaseUrl,
    });
    return {
      scenario: 'channels',
      ...measured,
      peak_rss_mb: peakRssMb(gateway.pid!),
    };
  } finally {
    await Promise.all([stop(gateway), stop(bare)]);
  }
}

// Scenario `channels`: authenticated GET /v1/channels (API-key auth against
// Postgres, the Redis rate-limit counter, the envelope) beside a bare express
// route in the same run: at saturation (50 connections) and open loop at
// RATE requests/s. Targets: ratio >= 0.5, p99 < 50 ms at 50 connections,
// gateway RSS < 200 MB; p99 < 10 ms at RATE.
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { createDb } from '@cowrie/db';
import {
  benchRedisEnv,
  clearRedisPrefixes,
  freePort,
  freshDatabase,
  measureAgainstBareExpress,
  peakRssMb,
  startProcess,
  stop,
  waitForHttp,
  type ScenarioResult,
} from '../lib';

/** The at-rate run's offered requests/s: a third or less of what this machine kind saturates at (2,800–6,600/s in runs here). */
const RATE = 1000;

export async function channels(): Promise<ScenarioResult> {
  const databaseUrl = await freshDatabase('cowrie_bench');
  const db = createDb({ databaseUrl, poolSize: 2 });
  const workspace = await createWorkspace(db, { name: 'Bench' });
  const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read'] });
  await db.$disconnect();

  const [gatewayPort, barePort] = [await freePort(), await freePort()];
  const redisEnv = benchRedisEnv();
  const gateway = startProcess('services/gateway/dist/main.js', {
    ...redisEnv,
    DATABASE_URL: databaseUrl,
    PORT: String(gatewayPort),
    PUBLIC_API_RATE_LIMIT: '1000000000',
  });
  const bare = startProcess('bench/baseline-server.ts', { PORT: String(barePort) });
  try {
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${barePort}/bare`);
    const origin = `http://127.0.0.1:${gatewayPort}`;
    const headers = { authorization: `Bearer ${key}` };
    const measured = await measureAgainstBareExpress({
      gateway: { url: `${origin}/v1/channels`, headers },
      atRate: { rate: RATE, origin, next: () => ({ method: 'GET', path: '/v1/channels', headers }) },
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
    await clearRedisPrefixes(redisEnv);
  }
}

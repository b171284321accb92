// Scenario `verification_start`: POST /v1/verifications (sandbox provider)
// with the gateway and the verification-dispatcher as separate processes, so
// every answer includes the dispatcher round trip (queue → delivery → the
// gateway reads the outcome). Every request has its own destination, and the
// limits are raised far out of reach, so nothing is refused. Baseline: the
// bare express route in the same run. Measured at saturation (50 connections)
// and open loop at RATE starts/s. Targets: p99 < 100 ms at 50 connections
// and p99 < 40 ms at RATE.
import { randomBytes } from 'node:crypto';
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
  type BenchRedisEnv,
  type ScenarioResult,
} from '../lib';

const CONNECTIONS = 50;
const DURATION_S = 10;
const HUGE = '1000000000';
/** The at-rate run's offered starts/s: under two thirds of what this machine kind saturates at (470–1,600/s in runs here). */
const RATE = 300;

/** Env shared by the gateway and the dispatcher of the verification scenarios. */
export function verificationEnv(databaseUrl: string, redisEnv: BenchRedisEnv): Record<string, string> {
  return {
    ...redisEnv,
    DATABASE_URL: databaseUrl,
    PUBLIC_API_RATE_LIMIT: HUGE,
    VERIFY_RATE_DEST_LIMIT: HUGE,
    VERIFY_RATE_BIZ_LIMIT: HUGE,
    // Short windows and retention: the bench's counters and sandbox mailboxes leave Redis soon after.
    VERIFY_RATE_WINDOW_SECONDS: '60',
    VERIFY_SANDBOX_RETENTION_SECONDS: '60',
    VERIFY_SMS_PROVIDER: 'sandbox',
    VERIFY_EMAIL_PROVIDER: 'sandbox',
  };
}

/**
 * One request body per call, each to a destination no other request used:
 * even calls an email, odd calls a Nigerian mobile number (+234 803 + 7 digits).
 */
function uniqueDestinations() {
  const tag = randomBytes(4).toString('hex');
  const phoneBase = Math.floor(Math.random() * 5_000_000);
  let n = 0;
  return () => {
    const i = n++;
    return i % 2 === 0
      ? JSON.stringify({ channel: 'email', destination: `bench-${tag}-${i}@example.com` })
      : JSON.stringify({ channel: 'sms', destination: `+234803${String((phoneBase + i) % 10_000_000).padStart(7, '0')}` });
  };
}

export async function verificationStart(): Promise<ScenarioResult> {
  const databaseUrl = await freshDatabase('cowrie_bench_verification_start');
  const db = createDb({ databaseUrl, poolSize: 2 });
  const workspace = await createWorkspace(db, { name: 'Bench' });
  const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read', 'verification:write'] });
  await db.$disconnect();

  const [gatewayPort, barePort] = [await freePort(), await freePort()];
  const redisEnv = benchRedisEnv();
  const env = verificationEnv(databaseUrl, redisEnv);
  const gateway = startProcess('services/gateway/dist/main.js', { ...env, PORT: String(gatewayPort) });
  const dispatcher = startProcess('services/verification-dispatcher/dist/main.js', env);
  const bare = startProcess('bench/baseline-server.ts', { PORT: String(barePort) });
  try {
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${barePort}/bare`);
    const origin = `http://127.0.0.1:${gatewayPort}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const nextBody = uniqueDestinations();
    const requests = [{ method: 'POST' as const, path: '/v1/verifications', headers, setupRequest: (req: object) => ({ ...req, body: nextBody() }) }];
    const measured = await measureAgainstBareExpress({
      gateway: { url: `${origin}/v1/verifications`, requests },
      atRate: { rate: RATE, origin, next: () => ({ method: 'POST', path: '/v1/verifications', headers, body: nextBody() }) },
      barePort,
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      databaseUrl,
    });

    // Every answer waited for its delivery: the rows say whether it happened.
    const check = createDb({ databaseUrl, poolSize: 1 });
    const delivered = await check.verification.count({ where: { deliveredAt: { not: null } } });
    const total = await check.verification.count();
    await check.$disconnect();
    return {
      scenario: 'verification_start',
      ...measured,
      peak_rss_mb: peakRssMb(gateway.pid!),
      dispatcher_peak_rss_mb: peakRssMb(dispatcher.pid!),
      verifications_created: total,
      verifications_delivered: delivered,
      channels: 'email+sms (sandbox), alternating',
      target_p99_ms: 100,
    };
  } finally {
    await Promise.all([stop(gateway), stop(dispatcher), stop(bare)]);
    await clearRedisPrefixes(redisEnv);
  }
}

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
import { measureAgainstBareExpress, startBenchStack, type ScenarioResult } from '../lib';

const CONNECTIONS = 50;
const DURATION_S = 10;
const HUGE = '1000000000';
/** The at-rate run's offered starts/s: under two thirds of what this machine kind saturates at (470–1,600/s in runs here). */
const RATE = 300;

/** Env shared by the gateway and the dispatcher of the verification scenarios (the stack gives the database and Redis). */
export function verificationEnv(): Record<string, string> {
  return {
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
  const stack = await startBenchStack({
    name: 'cowrie_bench_verification_start',
    env: verificationEnv(),
    services: [
      { service: 'gateway', listens: true, readyPath: '/healthz' },
      { service: 'verification-dispatcher' },
      { service: 'bench/baseline-server.ts', listens: true, readyPath: '/bare' },
    ],
  });
  const [gateway, dispatcher, bare] = stack.replicas;
  const { databaseUrl } = stack;
  try {
    const db = createDb({ databaseUrl, poolSize: 2 });
    const workspace = await createWorkspace(db, { name: 'Bench' });
    const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read', 'verification:write'] });
    await db.$disconnect();

    const origin = gateway!.url!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const nextBody = uniqueDestinations();
    const requests = [{ method: 'POST' as const, path: '/v1/verifications', headers, setupRequest: (req: object) => ({ ...req, body: nextBody() }) }];
    const measured = await measureAgainstBareExpress({
      gateway: { url: `${origin}/v1/verifications`, requests },
      atRate: { rate: RATE, origin, next: () => ({ method: 'POST', path: '/v1/verifications', headers, body: nextBody() }) },
      barePort: Number(new URL(bare!.url!).port),
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
      peak_rss_mb: gateway!.process!.peakRssMb(),
      dispatcher_peak_rss_mb: dispatcher!.process!.peakRssMb(),
      verifications_created: total,
      verifications_delivered: delivered,
      channels: 'email+sms (sandbox), alternating',
      target_p99_ms: 100,
    };
  } finally {
    await stack.close();
  }
}

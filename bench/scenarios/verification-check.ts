// Scenario `verification_check`: POST /v1/verifications/:reference/check with
// a wrong code (the attempt-counting UPDATE and its transaction, the heavier
// path) spread round-robin over many pending verifications, so concurrent
// checks rarely meet on one row. The verifications are created beforehand with
// the package's createVerification and an attempt budget no run can exhaust,
// so every check stays `invalid_code`. Baseline: the bare express route in the
// same run, at saturation (50 connections) and open loop at RATE checks/s.
// Targets: p99 < 30 ms at 50 connections; p99 < 15 ms at RATE
// checks/s.
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { loadConfig } from '@cowrie/core';
import { createDb, createSqlPool } from '@cowrie/db';
import { createVerification } from '@cowrie/verification';
import { BENCH_ENCRYPTION_KEY, measureAgainstBareExpress, startBenchStack, type ScenarioResult } from '../lib';
import { verificationEnv } from './verification-start';

const CONNECTIONS = 50;
const DURATION_S = 10;
const VERIFICATIONS = 2000;
const CODE = '4321';
const WRONG_CODE = '1234';
/** The at-rate run's offered checks/s: under half of what this machine kind saturates at (2,100–5,000/s in runs here). */
const RATE = 1000;

export async function verificationCheck(): Promise<ScenarioResult> {
  const stack = await startBenchStack({
    name: 'cowrie_bench_verification_check',
    env: verificationEnv(),
    services: [
      { service: 'gateway', listens: true, readyPath: '/healthz' },
      { service: 'bench/baseline-server.ts', listens: true, readyPath: '/bare' },
    ],
  });
  const [gateway, bare] = stack.replicas;
  const { databaseUrl } = stack;
  try {
    const db = createDb({ databaseUrl, poolSize: 8 });
    const sql = createSqlPool({ databaseUrl, poolSize: 8 });
    const workspace = await createWorkspace(db, { name: 'Bench' });
    const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['read', 'verification:write'] });
    const config = loadConfig({
      ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
      VERIFY_MAX_ATTEMPTS: '1000000000',
      VERIFY_CODE_TTL_SECONDS: '3600',
    });
    const references: string[] = [];
    for (let i = 0; i < VERIFICATIONS; i += 8) {
      const created = await Promise.all(
        Array.from({ length: Math.min(8, VERIFICATIONS - i) }, (_, j) =>
          createVerification(sql, config, { workspaceId: workspace.id, mode: 'live', channel: 'email', destination: `check-${i + j}@example.com`, code: CODE }),
        ),
      );
      references.push(...created.map((c) => c.verification.reference));
    }
    await Promise.all([db.$disconnect(), sql.end()]);

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ code: WRONG_CODE });
    let n = 0;
    const nextPath = () => `/v1/verifications/${references[n++ % references.length]}/check`;
    const requests = [{ method: 'POST' as const, headers, body, setupRequest: (req: object) => ({ ...req, path: nextPath() }) }];
    const origin = gateway!.url!;
    const measured = await measureAgainstBareExpress({
      gateway: { url: origin, requests },
      atRate: { rate: RATE, origin, next: () => ({ method: 'POST', path: nextPath(), headers, body }) },
      barePort: Number(new URL(bare!.url!).port),
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      databaseUrl,
    });

    // Every check was a counted wrong guess on a row that stays pending.
    const check = createDb({ databaseUrl, poolSize: 1 });
    const counted = await check.verification.aggregate({ _sum: { attempts: true } });
    const notPending = await check.verification.count({ where: { status: { not: 'pending' } } });
    await check.$disconnect();
    return {
      scenario: 'verification_check',
      ...measured,
      peak_rss_mb: gateway!.process!.peakRssMb(),
      verifications: VERIFICATIONS,
      attempts_counted: counted._sum.attempts ?? 0,
      verifications_not_pending: notPending,
      outcome: 'failed/invalid_code (wrong code)',
      target_p99_ms: 30,
    };
  } finally {
    await stack.close();
  }
}

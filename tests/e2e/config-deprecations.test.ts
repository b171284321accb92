// Risk: a deployment still on an older Paystack variable name (PAYOUT_PAYSTACK_BASE_URL,
// PAYOUT_PAYSTACK_TIMEOUT_MS, COLLECTION_RAIL_TIMEOUT_MS) is not told to move, is told on every
// request instead of once at start-up, or is told with the value in the log line. The gateway and
// a worker run as real processes (the two start-up paths).
import { freePort, spawnServiceProcess, waitFor, type ServiceProcess, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.cleanup());

const OLD_NAMES = {
  PAYOUT_PAYSTACK_BASE_URL: 'http://127.0.0.1:9/old-base-url-marker',
  PAYOUT_PAYSTACK_TIMEOUT_MS: '13579',
  COLLECTION_RAIL_TIMEOUT_MS: '24680',
};

async function stop(service: ServiceProcess) {
  service.child.kill('SIGTERM');
  await service.exited;
}

/** The JSON log lines of a process that warn about a deprecated variable. */
function deprecationLines(output: string): Array<{ level: number; variable: string; replacement: string; msg: string; raw: string }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('is deprecated'))
    .map((raw) => ({ ...(JSON.parse(raw) as { level: number; variable: string; replacement: string; msg: string }), raw }));
}

function expectWarnedOnceEach(output: string) {
  const lines = deprecationLines(output);
  expect(lines.map((l) => l.variable).sort()).toEqual(Object.keys(OLD_NAMES).sort());
  expect(Object.fromEntries(lines.map((l) => [l.variable, l.replacement]))).toEqual({
    PAYOUT_PAYSTACK_BASE_URL: 'PAYSTACK_BASE_URL',
    PAYOUT_PAYSTACK_TIMEOUT_MS: 'PAYSTACK_TIMEOUT_MS',
    COLLECTION_RAIL_TIMEOUT_MS: 'PAYSTACK_TIMEOUT_MS',
  });
  for (const line of lines) {
    expect(line.level).toBe(40); // warn
    for (const value of Object.values(OLD_NAMES)) expect(line.raw).not.toContain(value);
  }
}

test('the gateway names each deprecated Paystack variable once at start-up, at warn, without its value, and keeps serving', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const gateway = spawnServiceProcess(env.config, 'gateway', { PORT: String(port), HOST: '127.0.0.1', ...OLD_NAMES });
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, 30_000, 100);
    // Requests do not repeat the warning.
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expectWarnedOnceEach(gateway.output());
  } finally {
    await stop(gateway);
  }
});

test('a worker (runWorkerService) warns the same way; the new names alone warn about nothing', async () => {
  const port = await freePort();
  const worker = spawnServiceProcess(env.config, 'payout-worker', { PAYOUT_WORKER_METRICS_PORT: String(port), ...OLD_NAMES });
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 30_000, 100);
    expectWarnedOnceEach(worker.output());
  } finally {
    await stop(worker);
  }
  const newPort = await freePort();
  const current = spawnServiceProcess(env.config, 'payout-worker', {
    PAYOUT_WORKER_METRICS_PORT: String(newPort),
    PAYSTACK_BASE_URL: 'http://127.0.0.1:9',
    PAYSTACK_TIMEOUT_MS: '5000',
    PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_separate_business_for_payouts',
  });
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${newPort}/healthz`).catch(() => null))?.ok, 30_000, 100);
    expect(deprecationLines(current.output())).toEqual([]);
  } finally {
    await stop(current);
  }
});

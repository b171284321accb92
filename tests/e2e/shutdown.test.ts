// Risk: a deploy (SIGTERM) drops work: a request the gateway had accepted
// answered by a reset connection, or a payout job lost or sent twice when its
// worker stops under load. The gateway and the worker run as real processes.
import { startPayoutWorker } from '@cowrie/payout-worker';
import { createWorkspaceWithKey, freePort, spawnServiceProcess, waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { fund } from './payout-stack';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ PUBLIC_API_RATE_LIMIT: '100000', VERIFY_RATE_BIZ_LIMIT: '100000' });
});
afterAll(() => env?.cleanup());

/** One of the services' mains as its own process, on the test env's database and Redis. */
const spawnService = (service: string, extra: Record<string, string>) => spawnServiceProcess(env.config, service, extra);

interface Outcome {
  startedAt: number;
  ms?: number;
  status?: number;
  json?: boolean;
  error?: string;
}

async function timed(url: string, init: RequestInit): Promise<Outcome> {
  const startedAt = Date.now();
  try {
    const res = await fetch(url, init);
    const body = (await res.json()) as { data?: unknown; error?: unknown };
    return { startedAt, ms: Date.now() - startedAt, status: res.status, json: body.data !== undefined || body.error !== undefined };
  } catch (err) {
    return { startedAt, error: (err as Error).message };
  }
}

test('SIGTERM during load: every request started before it gets its answer; /readyz fails while draining', async () => {
  const { key } = await createWorkspaceWithKey(env.db, { name: 'Shutdown' });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // No dispatcher runs: each verification waits VERIFY_SYNC_WAIT_MS, then answers from the row.
  const gateway = spawnService('gateway', {
    PORT: String(port),
    HOST: '127.0.0.1',
    VERIFY_SYNC_WAIT_MS: '5000',
    SHUTDOWN_DRAIN_MS: '500',
    SHUTDOWN_GRACE_MS: '8000',
  });
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, 30_000, 100);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const outcomes: Promise<Outcome>[] = [];
    // Slow requests, still running when the listener closes.
    for (let i = 0; i < 12; i++) {
      const body = JSON.stringify({ channel: 'email', destination: `user${i}@example.com` });
      outcomes.push(timed(`${base}/v1/verifications`, { method: 'POST', headers, body }));
    }
    // Steady quick traffic on keep-alive connections until the gateway is gone.
    let sigtermAt = Infinity;
    let quickDone = 0;
    const loops = Array.from({ length: 4 }, async () => {
      for (;;) {
        const o = timed(`${base}/v1/channels`, { headers });
        outcomes.push(o);
        const done = await o;
        quickDone += 1;
        if (done.error || done.startedAt > sigtermAt + 2000) return;
      }
    });
    await waitFor(() => quickDone >= 12, 20_000, 10);
    sigtermAt = Date.now();
    gateway.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    const readyz = await fetch(`${base}/readyz`);
    expect(readyz.status).toBe(503);
    expect(readyz.headers.get('connection')).toBe('close');

    await Promise.all(loops);
    const all = await Promise.all(outcomes);
    const before = all.filter((o) => o.startedAt < sigtermAt);
    const slow = before.filter((o) => o.status === 201);
    expect(slow).toHaveLength(12);
    // They were still running when the listener closed (SIGTERM + the 500 ms drain), and were answered.
    for (const o of slow) expect(o.startedAt + o.ms!).toBeGreaterThan(sigtermAt + 500);
    expect(before.length).toBeGreaterThan(24);
    for (const o of before) {
      expect(o.error).toBeUndefined();
      expect([200, 201]).toContain(o.status);
      expect(o.json).toBe(true);
    }
    expect(await gateway.exited).toBe(0);
    expect(gateway.output()).toContain('gateway stopped');
  } finally {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  }
});

/** `count` transfers of `amount` NGN opened for the workspace and queued for a payout worker, as the gateway does. */
async function queuePayouts(workspaceId: number, count: number, amount: number, accountPrefix: string) {
  const { enqueue, openQueue, createRedis, Decimal } = await import('@cowrie/core');
  const { createTransfer, payoutJobId, payoutsQueue } = await import('@cowrie/payouts');
  const { createRails } = await import('@cowrie/rails');
  const rails = createRails(env.config, { redis: env.redis, sql: env.sql });
  const queueConnection = createRedis(env.config, { forBullmq: true });
  const queue = openQueue(payoutsQueue, { connection: queueConnection, prefix: env.config.QUEUE_PREFIX });
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const payout = await createTransfer(
      { db: env.db, sql: env.sql, rails, feeSchedule: env.config.PAYOUT_FEE_SCHEDULE },
      { workspaceId, currency: 'NGN', amount: new Decimal(amount), accountNumber: `${accountPrefix}${String(i).padStart(2, '0')}`, bankCode: '058' },
    );
    ids.push(payout.transaction.id);
    await enqueue(queue, payoutsQueue, 'payout.execute', { transactionId: payout.transaction.id }, { jobId: payoutJobId(payout.transaction) });
  }
  return {
    ids,
    queue,
    async close() {
      await queue.close();
      queueConnection.disconnect();
    },
  };
}

test('SIGTERM to a payout worker under load: no job lost, none paid twice', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Payout load' });
  await fund(env.db, workspace.id, 'NGN', '100000');
  const { Decimal } = await import('@cowrie/core');
  const { sandboxTransferCalls } = await import('@cowrie/rails');
  const { ids, queue, close } = await queuePayouts(workspace.id, 16, 100, '01234567');
  const completed = () => env.db.ledgerTransaction.count({ where: { id: { in: ids }, status: 'completed' } });
  // Each rail call takes 400 ms, four at a time: the worker is mid-batch at SIGTERM.
  const worker = spawnService('payout-worker', { PAYOUT_SANDBOX_DELAY_MS: '400', PAYOUT_WORKER_CONCURRENCY: '4', SHUTDOWN_GRACE_MS: '5000' });
  let exitedCode: number | null;
  try {
    await waitFor(async () => (await completed()) >= 2, 30_000, 50);
    worker.child.kill('SIGTERM');
    exitedCode = await worker.exited;
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  }
  expect(exitedCode!).toBe(0);
  // The jobs it had taken finished before it exited: none is left half-done.
  const afterStop = await env.db.ledgerTransaction.count({ where: { id: { in: ids }, status: 'processing' } });
  expect(await completed()).toBeLessThan(16);
  expect(afterStop).toBe(16 - (await completed()));
  expect(await queue.getJobCounts('active')).toEqual({ active: 0 });

  // A new worker takes the rest.
  const next = await startPayoutWorker(env.config, env.logger);
  try {
    await waitFor(async () => (await completed()) === 16, 30_000, 50);
  } finally {
    await next.stop();
    await close();
  }
  // Each payout reached the rail exactly once.
  const rows = await env.db.ledgerTransaction.findMany({ where: { id: { in: ids } } });
  for (const row of rows) {
    expect(await sandboxTransferCalls(env.sql, row.reference)).toBe(1);
  }
  // Every hold settled once: nothing held, the balance down by exactly the sixteen payouts.
  const wallet = await env.db.wallet.findFirstOrThrow({ where: { workspaceId: workspace.id, currency: 'NGN' } });
  const spent = rows.reduce((sum, r) => sum.plus(r.amount.toString()).plus(r.fees.toString()), new Decimal(0));
  expect(wallet.held.toString()).toBe('0');
  expect(new Decimal(wallet.balance.toString()).equals(new Decimal(100000).minus(spent))).toBe(true);
});

test('SIGTERM to a webhook-sender whose receiver does not answer: it exits 0 within its grace, leaving the delivery pending for another sender', async () => {
  const { startHttpReceiver } = await import('@cowrie/testing');
  const { createAddressPolicy, createWebhookEndpoint } = await import('@cowrie/webhooks');
  const receiver = await startHttpReceiver(() => 'hang');
  try {
    const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Slow receiver' });
    const endpoint = await createWebhookEndpoint(env.db, {
      workspaceId: workspace.id,
      input: { url: `${receiver.url}/slow`, events: ['order.paid'] },
      encryptionKey: env.config.ENCRYPTION_KEY,
      maxEndpoints: env.config.WEBHOOK_ENDPOINTS_MAX,
      policy: createAddressPolicy(['127.0.0.0/8']),
    });
    // A receiver that holds the request longer than the grace: the attempt's timeout (10 s) outlasts it.
    const sender = spawnService('webhook-sender', { WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_TIMEOUT_MS: '10000', SHUTDOWN_GRACE_MS: '500' });
    let exitedCode: number | null;
    let stoppedInMs = 0;
    try {
      await env.db.outboxEvent.create({ data: { workspaceId: workspace.id, event: 'order.paid', payload: { order: 7 } } });
      await waitFor(() => receiver.requests.length >= 1, 30_000, 50);
      const sigtermAt = Date.now();
      sender.child.kill('SIGTERM');
      exitedCode = await sender.exited;
      stoppedInMs = Date.now() - sigtermAt;
    } finally {
      if (sender.child.exitCode === null) sender.child.kill('SIGKILL');
    }
    expect(exitedCode!).toBe(0);
    expect(stoppedInMs).toBeLessThan(5000);
    // Handed back with no outcome: the row is still pending, so the job another sender takes (once its lock
    // lapses) sends it again, under the same delivery id.
    expect(await env.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, select: { completedAt: true, attempts: true } })).toEqual([
      { completedAt: null, attempts: 0 },
    ]);
  } finally {
    await receiver.close();
  }
});

test('SIGTERM to a payout worker in the middle of a long reconciler pass (a slow rail): it exits 0 within its grace', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Slow reversal watch' });
  await fund(env.db, workspace.id, 'NGN', '100000');
  const { ids, close } = await queuePayouts(workspace.id, 24, 10, '02345678');
  const first = await startPayoutWorker(env.config, env.logger);
  try {
    await waitFor(async () => (await env.db.ledgerTransaction.count({ where: { id: { in: ids }, status: 'completed' } })) === 24, 30_000, 50);
  } finally {
    await first.stop();
    await close();
  }
  // Their reversal watch is due now; each question to the rail takes 3 s, eight at a time: a pass of 9 s.
  await env.db.payoutDispatch.updateMany({ where: { transactionId: { in: ids } }, data: { reversalCheckAt: new Date(Date.now() - 1000) } });
  const worker = spawnService('payout-worker', { PAYOUT_SANDBOX_DELAY_MS: '3000', SHUTDOWN_GRACE_MS: '1000' });
  let exitedCode: number | null;
  let stoppedInMs = 0;
  let stoppedAt = 0;
  try {
    await waitFor(() => worker.output().includes('worker consuming'), 30_000, 50);
    // The reconciler's first pass starts with the worker: it is asking the rail now.
    await new Promise((r) => setTimeout(r, 1500));
    const sigtermAt = Date.now();
    worker.child.kill('SIGTERM');
    exitedCode = await worker.exited;
    stoppedAt = Date.now();
    stoppedInMs = stoppedAt - sigtermAt;
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  }
  expect(exitedCode!).toBe(0);
  expect(stoppedInMs).toBeLessThan(6000);
  // The pass had claimed them (each check leased a minute ahead) and was stopped before any answer (3 s each):
  // none was counted as asked, none left the watch, and each is asked by a later pass once its lease ends.
  const watch = await env.db.payoutDispatch.findMany({ where: { transactionId: { in: ids } }, select: { reversalCheckAt: true, reversalChecks: true } });
  expect(watch).toHaveLength(24);
  expect(watch.filter((w) => w.reversalChecks !== 0 || !w.reversalCheckAt || w.reversalCheckAt.getTime() < stoppedAt)).toEqual([]);
});

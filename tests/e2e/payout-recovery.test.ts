// Risk: a payout stranded or paid twice when a process dies or Redis loses a
// job: a worker closed in the middle of a slow rail call, a crash between the
// commit and the enqueue, a crash after the rail got the transfer. The rail is
// the sandbox with an artificial delay; every case counts the calls that
// reached it.
import { Decimal, enqueue } from '@cowrie/core';
import { closeGatewayDeps, createApp, createGatewayDeps, type GatewayDeps } from '@cowrie/gateway';
import { createSqlPool } from '@cowrie/db';
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createTransfer, reconcilePayouts, reconcilePayoutsExclusively, payoutJobId, payoutsQueue } from '@cowrie/payouts';
import { createRails, sandboxTransferCalls } from '@cowrie/rails';
import { createWorkspaceWithKey, listenGateway, waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { hasLivePayoutJob, startPayoutWorker, type RunningPayoutWorker } from '@cowrie/payout-worker';

const DELAY_MS = 1500;
let env: TestEnv;
const workers: RunningPayoutWorker[] = [];

beforeAll(async () => {
  env = await createTestEnv({
    PAYOUT_SANDBOX_DELAY_MS: String(DELAY_MS),
    PAYOUT_SYNC_WAIT_MS: '300',
    SHUTDOWN_GRACE_MS: '200',
    PAYOUT_RECONCILE_EVERY_MS: '300',
    PAYOUT_RECONCILE_AFTER_MS: '700',
    PAYOUT_JOB_LOCK_MS: '2000',
    PUBLIC_API_RATE_LIMIT: '10000',
  });
});
afterAll(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await env.cleanup();
});

async function startWorker() {
  const w = await startPayoutWorker(env.config, env.logger);
  workers.push(w);
  return w;
}
async function stopWorker(w: RunningPayoutWorker) {
  workers.splice(workers.indexOf(w), 1);
  await w.stop();
}

const rails = () => createRails(env.config, { redis: env.redis, sql: env.sql });

/** A funded workspace and one `processing` payout with its hold, committed but never queued. */
async function processingPayout(amount = '25') {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, '100');
  const { transaction } = await createTransfer(
    { db: env.db, sql: env.sql, rails: rails(), feeSchedule: {} },
    { workspaceId: workspace.id, currency: 'NGN', amount: new Decimal(amount), accountNumber: '0123456789', bankCode: '058' },
  );
  return { workspaceId: workspace.id, transaction };
}

const rowStatus = async (id: number) => (await env.db.ledgerTransaction.findUniqueOrThrow({ where: { id } })).status;
const calls = (reference: string) => sandboxTransferCalls(env.sql, reference);

async function expectSettledOnce(workspaceId: number, transactionId: number, balance: string) {
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(wallet.balance.toFixed(6)).toBe(balance);
  expect(wallet.held.toFixed(6)).toBe('0.000000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
  const kinds = (await env.db.ledgerEntry.findMany({ where: { transactionId }, orderBy: { id: 'asc' } })).map((e) => e.kind);
  expect(kinds).toEqual(['hold', 'settle']);
  expect(await env.db.outboxEvent.count({ where: { workspaceId, event: 'transfer.completed' } })).toBe(1);
}

test('a slow rail: the gateway answers 201 processing in time, the worker settles it later', async () => {
  const worker = await startWorker();
  const gateway = await listenGateway<GatewayDeps>(env, { createDeps: (c, l) => createGatewayDeps(c, l), createApp, closeDeps: closeGatewayDeps });
  try {
    const { workspace, key } = await createWorkspaceWithKey(env.db);
    await fundWallet(env.db, workspace.id, '100');
    const res = await fetch(`${gateway.url}/v1/transfers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'NGN', amount: 30, account_number: '0123456789', bank_code: '058' }),
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(201);
    expect(body.data.status).toBe('processing');
    const wallet = (await findWallet(env.db, workspace.id, 'NGN'))!;
    expect(wallet.held.toFixed(6)).toBe('30.000000');
    await waitFor(async () => (await rowStatus(body.data.id)) === 'completed', 10_000);
    await expectSettledOnce(workspace.id, body.data.id, '70.000000');
  } finally {
    await gateway.close();
    await stopWorker(worker);
  }
});

test('a worker closed during a slow rail call leaves the row processing; the next worker asks the rail and never sends twice', async () => {
  const { workspaceId, transaction } = await processingPayout('25');
  const first = await startWorker();
  await enqueue(first.queue, payoutsQueue, 'payout.execute', { transactionId: transaction.id }, { jobId: payoutJobId(transaction) });
  // The rail has the transfer and is still answering.
  await waitFor(async () => (await calls(transaction.reference)) === 1, 10_000);
  await stopWorker(first);

  expect(await rowStatus(transaction.id)).toBe('processing');
  expect((await findWallet(env.db, workspaceId, 'NGN'))!.held.toFixed(6)).toBe('25.000000');

  const second = await startWorker();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  await expectSettledOnce(workspaceId, transaction.id, '75.000000');
  await stopWorker(second);
});

test('a crash between commit and enqueue: the reconciler queues the payout, which is sent once', async () => {
  const worker = await startWorker();
  const { workspaceId, transaction } = await processingPayout('10');
  expect(await worker.queue.getJob(payoutJobId(transaction))).toBeUndefined();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  await expectSettledOnce(workspaceId, transaction.id, '90.000000');
  await stopWorker(worker);
});

test('a crash after the dispatch was recorded but before the rail got it: the rail is asked, then it is sent once', async () => {
  const { workspaceId, transaction } = await processingPayout('10');
  await env.db.payoutDispatch.create({ data: { transactionId: transaction.id, attempts: 1, lastSentAt: new Date() } });
  const worker = await startWorker();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  expect((await env.db.payoutDispatch.findUniqueOrThrow({ where: { transactionId: transaction.id } })).attempts).toBe(2);
  await expectSettledOnce(workspaceId, transaction.id, '90.000000');
  await stopWorker(worker);
});

test('a crash after the rail got the transfer, with the job lost: the reconciled job settles from the rail without resending', async () => {
  const { workspaceId, transaction } = await processingPayout('10');
  await env.db.payoutDispatch.create({ data: { transactionId: transaction.id, attempts: 1, lastSentAt: new Date() } });
  await rails()
    .byId('sandbox')
    .transfer({
      reference: transaction.reference,
      amount: new Decimal('10'),
      currency: 'NGN',
      accountNumber: '0123456789',
      bankCode: '058',
      accountName: null,
      narration: 'x',
    });
  expect(await calls(transaction.reference)).toBe(1);
  const worker = await startWorker();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  await expectSettledOnce(workspaceId, transaction.id, '90.000000');
  await stopWorker(worker);
});

test('the reconciler leaves alone payouts with a live job and payouts younger than the bound', async () => {
  const { transaction } = await processingPayout('5');
  const worker = await startWorker();
  const jobId = payoutJobId(transaction);
  const job = await enqueue(worker.queue, payoutsQueue, 'payout.execute', { transactionId: transaction.id }, { jobId, delay: 60_000 });
  const requeued: number[] = [];
  const live = (payout: { id: number; reference: string }) => hasLivePayoutJob(worker.queue, payout);
  const young = await reconcilePayouts({ sql: env.sql, olderThanMs: 60_000, hasLiveJob: async () => false, requeue: async ({ id }) => void requeued.push(id) });
  expect(young.requeued).not.toContain(transaction.id);
  const withJob = await reconcilePayouts({ sql: env.sql, olderThanMs: 0, hasLiveJob: live, requeue: async ({ id }) => void requeued.push(id) });
  expect(withJob.requeued).not.toContain(transaction.id);
  expect(requeued).not.toContain(transaction.id);
  expect(await rowStatus(transaction.id)).toBe('processing');
  await job.promote();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  await stopWorker(worker);
});

test('the re-queue pass runs in one replica at a time: a pass that starts while another runs is skipped', async () => {
  const { transaction } = await processingPayout('5');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inFirstPass = new Promise<void>((resolve) => (entered = resolve));
  const seen: Record<string, number[]> = { first: [], second: [], third: [] };
  const pass = (name: string, hasLiveJob: () => Promise<boolean>) => ({
    olderThanMs: 0,
    hasLiveJob,
    requeue: async ({ id }: { id: number }) => void seen[name]!.push(id),
  });
  const first = reconcilePayoutsExclusively(
    env.sql,
    pass('first', async () => (entered(), await held, false)),
  );
  await inFirstPass;
  // Another replica: its own pool, the same database.
  const replica = createSqlPool({ databaseUrl: env.config.DATABASE_URL, poolSize: 2 });
  try {
    expect(
      await reconcilePayoutsExclusively(
        replica,
        pass('second', async () => false),
      ),
    ).toBeNull();
    release();
    expect((await first)!.requeued).toContain(transaction.id);
    expect(
      (await reconcilePayoutsExclusively(
        replica,
        pass('third', async () => false),
      ))!.requeued,
    ).toContain(transaction.id);
    expect(seen).toEqual({ first: expect.arrayContaining([transaction.id]), second: [], third: expect.arrayContaining([transaction.id]) });
  } finally {
    await replica.end();
  }
  // Left without a job on purpose above: a worker's own reconciler picks it up and settles it once.
  const worker = await startWorker();
  await waitFor(async () => (await rowStatus(transaction.id)) === 'completed', 15_000);
  expect(await calls(transaction.reference)).toBe(1);
  await stopWorker(worker);
});

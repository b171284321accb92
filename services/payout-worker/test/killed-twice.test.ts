// Risk: a payout stranded or paid twice when its worker is killed twice in a
// row, once after the rail accepted the transfer and once while asking the
// rail about it, so BullMQ gives the job up as stalled too often. Workers are
// real processes, SIGKILLed; the reconciler (a loop in the next worker) must
// still settle the payout, once, without sending it again.
import { Decimal, enqueue, openQueue, createRedis } from '@cowrie/core';
import { auditLedger, findWallet } from '@cowrie/ledger';
import { createTransfer, payoutJobId, payoutsQueue } from '@cowrie/payouts';
import { createRails, sandboxTransferCalls } from '@cowrie/rails';
import { createWorkspaceWithKey, spawnServiceProcess, waitFor, type ServiceProcess, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';

const WORKER_ENV = {
  PAYOUT_SANDBOX_DELAY_MS: '1500',
  PAYOUT_JOB_LOCK_MS: '1000',
  PAYOUT_RECONCILE_EVERY_MS: '300',
  PAYOUT_RECONCILE_AFTER_MS: '700',
  SHUTDOWN_GRACE_MS: '200',
};

let env: TestEnv;
const workers: ServiceProcess[] = [];
beforeAll(async () => {
  env = await createTestEnv(WORKER_ENV);
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await env.cleanup();
});

function startWorker() {
  const worker = spawnServiceProcess(env.config, 'payout-worker', WORKER_ENV);
  workers.push(worker);
  return worker;
}

async function kill(worker: ServiceProcess) {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

test('killed after the rail accepted, then killed while asking the rail: the reconciler settles it once', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, '100');
  const rails = createRails(env.config, { redis: env.redis, sql: env.sql });
  const { transaction } = await createTransfer(
    { db: env.db, sql: env.sql, rails, feeSchedule: {} },
    { workspaceId: workspace.id, currency: 'NGN', amount: new Decimal('30'), accountNumber: '0123456789', bankCode: '058' },
  );
  const connection = createRedis(env.config, { forBullmq: true });
  const queue = openQueue(payoutsQueue, { connection, prefix: env.config.QUEUE_PREFIX });
  try {
    await enqueue(queue, payoutsQueue, 'payout.execute', { transactionId: transaction.id }, { jobId: payoutJobId(transaction) });
    const attempts = async () => (await env.db.payoutDispatch.findUnique({ where: { transactionId: transaction.id } }))?.attempts ?? 0;
    const status = async () => (await env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: transaction.id } })).status;

    // First kill: the sandbox bank has the transfer; the worker is waiting for its answer.
    const first = startWorker();
    await waitFor(async () => (await sandboxTransferCalls(env.sql, transaction.reference)) === 1, 30_000, 20);
    await kill(first);

    // Second kill: the next worker took the stalled job up again and is asking the rail (no send).
    const second = startWorker();
    await waitFor(async () => (await attempts()) === 2, 30_000, 20);
    await kill(second);
    expect(await status()).toBe('processing');
    expect((await findWallet(env.db, workspace.id, 'NGN'))!.held.toFixed(6)).toBe('30.000000');

    // The third worker finds the job stalled once too often (BullMQ fails it); its reconciler re-queues the payout.
    const third = startWorker();
    await waitFor(async () => (await status()) === 'completed', 30_000, 50);
    expect(third.output()).toMatch(/processing payouts without a live job re-queued/);
    expect(await sandboxTransferCalls(env.sql, transaction.reference)).toBe(1);
    const kinds = (await env.db.ledgerEntry.findMany({ where: { transactionId: transaction.id }, orderBy: { id: 'asc' } })).map((e) => e.kind);
    expect(kinds).toEqual(['hold', 'settle']);
    expect(await env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'transfer.completed' } })).toBe(1);
    expect((await findWallet(env.db, workspace.id, 'NGN'))!.balance.toFixed(6)).toBe('70.000000');
    expect((await auditLedger(env.db)).violations).toEqual([]);
    third.child.kill('SIGTERM');
    await third.exited;
  } finally {
    await queue.close();
    connection.disconnect();
  }
});

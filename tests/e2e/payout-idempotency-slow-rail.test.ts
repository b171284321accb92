// Risk: a payout answered `processing` (its outcome came after the gateway's
// wait) that fails later, whose stored answer goes on being replayed under its
// Idempotency-Key: the client is told "processing" for a day and the payee is
// never paid. A retry after a definite failure runs a new attempt; while the
// payout is processing or completed, the retry is the stored answer's replay.
// Real gateway, payout worker (stopped while the request waits), Postgres, Redis.
import { startPayoutWorker } from '@cowrie/payout-worker';
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let worker: Awaited<ReturnType<typeof startPayoutWorker>> | null = null;
beforeAll(async () => {
  stack = await startPayoutStack({ PAYOUT_SYNC_WAIT_MS: '300' });
  await stack.worker.stop();
});
afterAll(async () => {
  await worker?.stop();
  await stack.close();
});

const transfer = (key: string, accountNumber: string, idempotencyKey: string) =>
  call(stack.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', amount: 25, account_number: accountNumber, bank_code: '058' },
    headers: { 'Idempotency-Key': idempotencyKey },
  });

/** Answered `processing`: no worker takes the job until the answer is out; then one settles it. */
async function answeredProcessingThenSettled(key: string, accountNumber: string, idempotencyKey: string, settled: string) {
  await worker?.stop();
  worker = null;
  const first = await transfer(key, accountNumber, idempotencyKey);
  expect(first.status).toBe(201);
  expect(first.body.data.status).toBe('processing');
  worker = await startPayoutWorker(stack.env.config, stack.env.logger);
  for (let waited = 0; ; waited += 50) {
    const row = await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: first.body.data.id } });
    if (row.status === settled) break;
    if (waited > 20_000) throw new Error(`payout ${row.id} is still ${row.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return first;
}

test('a payout answered processing that then failed: the retry runs a new attempt', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await answeredProcessingThenSettled(key, '0000000001', 'slow-then-failed', 'failed');
  const retry = await transfer(key, '0000000001', 'slow-then-failed');
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.body.data.id).not.toBe(first.body.data.id);
  expect(retry.body.data.reference).not.toBe(first.body.data.reference);
  const rows = await stack.env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, requestKey: 'slow-then-failed' } });
  expect(rows).toHaveLength(2);
});

test('a payout answered processing that then completed: the retry is the stored answer, sent nowhere again', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await answeredProcessingThenSettled(key, '0123456789', 'slow-then-completed', 'completed');
  const retry = await transfer(key, '0123456789', 'slow-then-completed');
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body.data).toEqual(first.body.data);
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, type: 'debit' } })).toBe(1);
});

test('a payout still processing a day later keeps its key: the retry answers it and pays nothing again', async () => {
  await worker?.stop();
  worker = null;
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, '0123456789', 'stuck-for-a-day');
  expect(first.body.data.status).toBe('processing');
  const dayAgo = `- interval '25 hours'`;
  await stack.env.db.$executeRawUnsafe(
    `UPDATE "IdempotencyRecord" SET "createdAt" = "createdAt" ${dayAgo}, "expiresAt" = "expiresAt" ${dayAgo} WHERE "workspaceId" = $1`,
    workspace.id,
  );
  await stack.env.db.$executeRawUnsafe(`UPDATE "LedgerTransaction" SET "createdAt" = "createdAt" ${dayAgo} WHERE "id" = $1`, first.body.data.id);
  const retry = await transfer(key, '0123456789', 'stuck-for-a-day');
  expect(retry.status).toBe(201);
  expect(retry.body.data.id).toBe(first.body.data.id);
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, type: 'debit' } })).toBe(1);
  // Let it settle before the file ends: the worker takes its job.
  worker = await startPayoutWorker(stack.env.config, stack.env.logger);
  await waitFor(async () => (await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: first.body.data.id } })).status === 'completed', 20_000, 50);
});

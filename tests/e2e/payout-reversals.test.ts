// Risk: the ledger saying money left while the bank gave it back (a reversal
// never seen), or the money coming back twice (a notification delivered many
// times, or racing the reconciler), or a reversal for an unknown reference
// credited. Real gateway, payout worker with its loops, Postgres and Redis;
// the sandbox bank reverses transfers to 0000000003.
import { DEFAULT_OUTCOME_SCHEDULE, checkDueReversals, receivePayoutNotification } from '@cowrie/payouts';
import { createModeRails } from '@cowrie/rails';
import { auditLedger, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack();
});
afterAll(() => stack.close());

async function ownWorkspace(amount = '1000') {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', amount);
  return { id: workspace.id, key };
}
const send = (key: string, account: string, amount = 100) =>
  call(stack.url, 'POST', '/v1/transfers', { token: key, body: { currency: 'NGN', amount, account_number: account, bank_code: '058' } });
const balance = async (id: number) => {
  const wallet = (await findWallet(stack.env.db, id, 'NGN'))!;
  return { balance: wallet.balance.toFixed(6), held: wallet.held.toFixed(6) };
};
const statusOf = async (id: number) => (await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id } })).status;
const reversalCredits = (workspaceId: number) => stack.env.db.ledgerTransaction.findMany({ where: { workspaceId, type: 'credit', category: 'reversal' } });

test('a transfer to 0000000003 completes, then the sandbox bank reverses it: reversed, the money back once, one transfer.reversed event', async () => {
  const ws = await ownWorkspace();
  const sent = await send(ws.key, '0000000003', 100);
  expect(sent.status).toBe(201);
  expect(sent.body.data.status).toBe('completed');
  expect(await balance(ws.id)).toEqual({ balance: '900.000000', held: '0.000000' });

  await waitFor(async () => (await statusOf(sent.body.data.id)) === 'reversed', 10_000);
  expect(await balance(ws.id)).toEqual({ balance: '1000.000000', held: '0.000000' });
  const credits = await reversalCredits(ws.id);
  expect(credits).toHaveLength(1);
  expect(credits[0]).toMatchObject({ channel: 'payout', status: 'completed', direction: 'in', idempotencyKey: `reversal:${sent.body.data.reference}` });
  expect(credits[0]!.amount.toFixed(6)).toBe('100.000000');
  expect(credits[0]!.metadata).toMatchObject({ reversal_of: sent.body.data.reference });

  const events = await stack.env.db.outboxEvent.findMany({ where: { workspaceId: ws.id, event: 'transfer.reversed' } });
  expect(events).toHaveLength(1);
  expect(events[0]!.payload).toMatchObject({ id: sent.body.data.id, reference: sent.body.data.reference, status: 'reversed' });
  expect((events[0]!.payload as { metadata: Record<string, unknown> }).metadata.reversed_by).toBe(credits[0]!.reference);

  // The API shows both: the payout reversed, the credit naming it.
  const list = await call(stack.url, 'GET', '/v1/transactions', { token: ws.key });
  const byReference = new Map(list.body.data.map((t: { reference: string; status: string }) => [t.reference, t]));
  expect(byReference.get(sent.body.data.reference)).toMatchObject({ status: 'reversed' });
  expect(byReference.get(credits[0]!.reference)).toMatchObject({ type: 'credit', category: 'reversal', metadata: { reversal_of: sent.body.data.reference } });
});

test('a reversal notified many times, racing the reversal watch, credits once', async () => {
  const ws = await ownWorkspace();
  const sent = await send(ws.key, '0000000003', 40);
  expect(sent.body.data.status).toBe('completed');
  const rails = createModeRails(stack.env.config, { redis: stack.env.redis, sql: stack.env.sql });
  // The bank has returned it (reverseAt passed); every path hears of it at once.
  await stack.env.db.sandboxTransfer.update({ where: { reference: sent.body.data.reference }, data: { reverseAt: new Date(Date.now() - 1000) } });
  await stack.env.db.payoutDispatch.update({ where: { transactionId: sent.body.data.id }, data: { reversalCheckAt: new Date(Date.now() - 1000) } });
  const notification = { provider: 'sandbox', event: 'transfer.reversed', reference: sent.body.data.reference, payload: {} };
  const outcomes = await Promise.all([
    ...Array.from({ length: 5 }, () => receivePayoutNotification({ sql: stack.env.sql, rails, log: stack.env.logger }, notification)),
    checkDueReversals({ sql: stack.env.sql, rails, schedule: DEFAULT_OUTCOME_SCHEDULE, log: stack.env.logger }),
  ]);
  expect(outcomes.length).toBe(6);
  await waitFor(async () => (await statusOf(sent.body.data.id)) === 'reversed', 5_000);
  expect(await reversalCredits(ws.id)).toHaveLength(1);
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.reversed' } })).toBe(1);
  expect(await balance(ws.id)).toEqual({ balance: '1000.000000', held: '0.000000' });
  expect((await auditLedger(stack.env.db)).violations).toEqual([]);
});

test('a reversal for a reference Cowrie does not know is kept for review and credits nothing', async () => {
  const rails = createModeRails(stack.env.config, { redis: stack.env.redis, sql: stack.env.sql });
  const credits = await stack.env.db.ledgerTransaction.count({ where: { type: 'credit' } });
  const notification = { provider: 'sandbox', event: 'transfer.reversed', reference: 'snd_nobody_knows_this_one', payload: { data: { amount: 5000 } } };
  for (let i = 0; i < 2; i++) {
    await expect(receivePayoutNotification({ sql: stack.env.sql, rails, log: stack.env.logger }, notification)).resolves.toEqual({ kind: 'unmatched' });
  }
  expect(await stack.env.db.ledgerTransaction.count({ where: { type: 'credit' } })).toBe(credits);
  const kept = await stack.env.db.unmatchedPayoutEvent.findMany({ where: { reference: 'snd_nobody_knows_this_one' } });
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatchObject({ provider: 'sandbox', event: 'transfer.reversed', received: 2, payload: { data: { amount: 5000 } } });
  expect(stack.env.logLines.some((l) => l.includes('does not know') && l.includes('snd_nobody_knows_this_one'))).toBe(true);
});

test('the reversal watch finds a reversal whose notification was lost, and leaves the watch when it ends', async () => {
  const ws = await ownWorkspace();
  const sent = await send(ws.key, '0000000003', 60);
  const other = await send(ws.key, '0123456789', 10);
  expect([sent.body.data.status, other.body.data.status]).toEqual(['completed', 'completed']);
  // The notification is lost: the sandbox bank has returned it, but nobody is told.
  await stack.env.db.sandboxTransfer.update({ where: { reference: sent.body.data.reference }, data: { reverseAt: null, notifiedAt: new Date() } });
  const rails = createModeRails(stack.env.config, { redis: stack.env.redis, sql: stack.env.sql });
  const dispatch = (id: number) => stack.env.db.payoutDispatch.findUniqueOrThrow({ where: { transactionId: id } });
  // Both are watched from their take-up on, first after PAYOUT_REVERSAL_FIRST_CHECK_MS.
  for (const id of [sent.body.data.id, other.body.data.id]) expect((await dispatch(id)).reversalCheckAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);
  const due = new Date(Date.now() + DEFAULT_OUTCOME_SCHEDULE.reversalFirstCheckMs + 1000);
  const schedule = { ...DEFAULT_OUTCOME_SCHEDULE, reversalWatchMs: 3_600_000 };
  await checkDueReversals({ sql: stack.env.sql, rails, schedule, log: stack.env.logger, now: due });
  expect(await statusOf(sent.body.data.id)).toBe('reversed');
  expect(await reversalCredits(ws.id)).toHaveLength(1);
  expect(await statusOf(other.body.data.id)).toBe('completed');
  // The reversed one left the watch; the other is looked at again later, then a last time at the end of the watch.
  expect((await dispatch(sent.body.data.id)).reversalCheckAt).toBeNull();
  const next = (await dispatch(other.body.data.id)).reversalCheckAt!;
  expect(next.getTime()).toBeGreaterThan(due.getTime());
  const end = new Date((await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: other.body.data.id } })).updatedAt.getTime() + 3_600_000);
  await checkDueReversals({ sql: stack.env.sql, rails, schedule, log: stack.env.logger, now: end });
  expect((await dispatch(other.body.data.id)).reversalCheckAt).toBeNull();
  expect((await dispatch(other.body.data.id)).reversalChecks).toBeGreaterThanOrEqual(2);
});

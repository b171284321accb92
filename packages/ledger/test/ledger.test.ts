// Risk: money created or lost: an overdraft under concurrency, a hold settled or
// released twice, or a balance that no longer equals the sum of its entries.
import { Decimal } from '@cowrie/core';
import { createTestEnv, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { auditWallet, creditWallet, findWallet, newReference, placeHold, releaseHold, renderBalance, settleHold } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

async function fundedWallet(amount: string) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await env.db.$transaction((tx) =>
    creditWallet(tx, { workspaceId: workspace.id, currency: 'NGN', amount: new Decimal(amount), category: 'adjustment', channel: 'adjustment', title: 'Funding', description: 'test funding', provider: 'sandbox' }),
  );
  const wallet = (await findWallet(env.db, workspace.id, 'ngn'))!;
  return { workspaceId: workspace.id, wallet };
}

async function debitRow(workspaceId: number, walletId: number, amount: string) {
  const reference = newReference('snd');
  return env.db.ledgerTransaction.create({
    data: { workspaceId, walletId, type: 'debit', direction: 'out', category: 'send', channel: 'transfer', status: 'processing', reference, idempotencyKey: reference, currency: 'NGN', amount, title: 't', description: 'd', provider: 'sandbox' },
  });
}

test('a credit raises balance and available, and is recorded once per idempotency key', async () => {
  const { workspaceId, wallet } = await fundedWallet('100.5');
  expect(renderBalance(wallet)).toEqual({ currency: 'NGN', available: '100.500000', pending: '0.000000', ledger: '100.500000', status: 'live' });
  const input = { workspaceId, currency: 'NGN', amount: new Decimal('10'), category: 'collection', channel: 'collection_va', title: 'In', description: 'in', provider: 'sandbox', idempotencyKey: 'rail-ref-1' };
  const first = await env.db.$transaction((tx) => creditWallet(tx, input));
  const second = await env.db.$transaction((tx) => creditWallet(tx, input));
  expect(first.created).toBe(true);
  expect(second.created).toBe(false);
  expect(second.transaction.id).toBe(first.transaction.id);
  const after = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(after).ledger).toBe('110.500000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('a hold moves available to pending; settle removes it from the ledger; both happen once', async () => {
  const { workspaceId, wallet } = await fundedWallet('50');
  const tx1 = await debitRow(workspaceId, wallet.id, '20');
  expect(await env.db.$transaction((tx) => placeHold(tx, { walletId: wallet.id, transactionId: tx1.id, amount: new Decimal('20') }))).toBe(true);
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!)).toMatchObject({ available: '30.000000', pending: '20.000000', ledger: '50.000000' });
  expect(await env.db.$transaction((tx) => settleHold(tx, tx1.id))).toBe(true);
  expect(await env.db.$transaction((tx) => settleHold(tx, tx1.id))).toBe(false);
  expect(await env.db.$transaction((tx) => releaseHold(tx, tx1.id))).toBe(false);
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!)).toMatchObject({ available: '30.000000', pending: '0.000000', ledger: '30.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('a released hold gives the money back to available', async () => {
  const { workspaceId, wallet } = await fundedWallet('50');
  const tx1 = await debitRow(workspaceId, wallet.id, '50');
  await env.db.$transaction((tx) => placeHold(tx, { walletId: wallet.id, transactionId: tx1.id, amount: new Decimal('50') }));
  expect(await env.db.$transaction((tx) => releaseHold(tx, tx1.id))).toBe(true);
  expect(await env.db.$transaction((tx) => settleHold(tx, tx1.id))).toBe(false);
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!)).toMatchObject({ available: '50.000000', pending: '0.000000', ledger: '50.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('100 concurrent holds of 1.00 on a wallet holding 30.00: exactly 30 succeed, never an overdraft', async () => {
  const { workspaceId, wallet } = await fundedWallet('30');
  const rows = await Promise.all(Array.from({ length: 100 }, () => debitRow(workspaceId, wallet.id, '1')));
  const results = await Promise.all(
    rows.map((row) => env.db.$transaction((tx) => placeHold(tx, { walletId: wallet.id, transactionId: row.id, amount: new Decimal('1') }))),
  );
  expect(results.filter(Boolean)).toHaveLength(30);
  const audit = await auditWallet(env.db, wallet.id);
  expect(audit.consistent).toBe(true);
  expect(audit.held.toFixed(6)).toBe('30.000000');
  expect(audit.balance.minus(audit.held).toFixed(6)).toBe('0.000000');
});

test('a settle racing a release: exactly one applies', async () => {
  const { workspaceId, wallet } = await fundedWallet('10');
  const row = await debitRow(workspaceId, wallet.id, '10');
  await env.db.$transaction((tx) => placeHold(tx, { walletId: wallet.id, transactionId: row.id, amount: new Decimal('10') }));
  const [settled, released] = await Promise.all([
    env.db.$transaction((tx) => settleHold(tx, row.id)),
    env.db.$transaction((tx) => releaseHold(tx, row.id)),
  ]);
  expect([settled, released].filter(Boolean)).toHaveLength(1);
  const audit = await auditWallet(env.db, wallet.id);
  expect(audit.consistent).toBe(true);
  expect(audit.held.toFixed(6)).toBe('0.000000');
});

test('concurrent credits with one idempotency key credit once', async () => {
  const { workspaceId, wallet } = await fundedWallet('1');
  const input = { workspaceId, currency: 'NGN', amount: new Decimal('5'), category: 'collection', channel: 'collection_va', title: 'In', description: 'in', provider: 'sandbox', idempotencyKey: 'dup-ref' };
  const results = await Promise.all(Array.from({ length: 10 }, () => env.db.$transaction((tx) => creditWallet(tx, input))));
  expect(results.filter((r) => r.created)).toHaveLength(1);
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!).ledger).toBe('6.000000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

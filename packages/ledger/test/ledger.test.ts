// Risk: money created or lost: a credit applied twice, or a balance that no
// longer equals the sum of its entries. Holds are this package's too
// (openHeldDebit, closeHeldDebit) but are tested through the payouts that open
// and close them (packages/payouts/test/payouts.test.ts: the overdraft guard,
// settle or release once); the auditor in audit.test.ts.
import { Decimal } from '@cowrie/core';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '../testing';
import { auditWallet, creditWallet, findWallet, holdsRequestKey, renderBalance } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

async function fundedWallet(amount: string) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, amount);
  const wallet = (await findWallet(env.db, workspace.id, 'ngn'))!;
  return { workspaceId: workspace.id, wallet };
}

test('a credit raises balance and available, and is recorded once per idempotency key', async () => {
  const { workspaceId, wallet } = await fundedWallet('100.5');
  expect(renderBalance(wallet)).toEqual({ currency: 'NGN', available: '100.500000', pending: '0.000000', ledger: '100.500000', status: 'live' });
  const input = {
    workspaceId,
    currency: 'NGN',
    amount: new Decimal('10'),
    // An operator's adjustment: a collection credit would need the inbound payment that names it (the auditor checks every credit's source).
    category: 'adjustment',
    channel: 'adjustment',
    title: 'In',
    description: 'in',
    provider: 'operator',
    idempotencyKey: 'rail-ref-1',
  };
  const first = await env.db.$transaction((tx) => creditWallet(tx, input));
  const second = await env.db.$transaction((tx) => creditWallet(tx, input));
  expect(first.created).toBe(true);
  expect(second.created).toBe(false);
  expect(second.transaction.id).toBe(first.transaction.id);
  const after = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(after).ledger).toBe('110.500000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('concurrent credits with one idempotency key credit once', async () => {
  const { workspaceId, wallet } = await fundedWallet('1');
  const input = {
    workspaceId,
    currency: 'NGN',
    amount: new Decimal('5'),
    // An operator's adjustment: a collection credit would need the inbound payment that names it (the auditor checks every credit's source).
    category: 'adjustment',
    channel: 'adjustment',
    title: 'In',
    description: 'in',
    provider: 'operator',
    idempotencyKey: 'dup-ref',
  };
  const results = await Promise.all(Array.from({ length: 10 }, () => env.db.$transaction((tx) => creditWallet(tx, input))));
  expect(results.filter((r) => r.created)).toHaveLength(1);
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!).ledger).toBe('6.000000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('a debit holds its Idempotency-Key header for 24 hours from its opening, and whatever its age while it is processing', () => {
  const now = new Date('2025-03-02T12:00:00.000Z');
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3600_000);
  expect(holdsRequestKey({ createdAt: hoursAgo(23.9), status: 'completed' }, now)).toBe(true);
  expect(holdsRequestKey({ createdAt: new Date(hoursAgo(24).getTime() + 1), status: 'failed' }, now)).toBe(true);
  expect(holdsRequestKey({ createdAt: hoursAgo(24), status: 'completed' }, now)).toBe(false);
  expect(holdsRequestKey({ createdAt: hoursAgo(25), status: 'reversed' }, now)).toBe(false);
  expect(holdsRequestKey({ createdAt: hoursAgo(24 * 30), status: 'processing' }, now)).toBe(true);
});

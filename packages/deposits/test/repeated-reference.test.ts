// Risk: a repeated deposit `reference` telling the client that a one-off
// account is open when its collection has expired or been paid, or when the
// repeat asks for another amount or currency: the payer then pays an account
// that can no longer be credited and the money lands unmatched. Also: a
// refused repeat opening or writing anything, concurrent repeats opening a
// second account or sending collection.expired twice, and reserved_va being
// touched by a one-off account's reference. Real Postgres, the sandbox rail,
// an injected clock.
import { Decimal } from '@cowrie/core';
import { DEFAULT_CHANNELS, type Channel } from '@cowrie/catalog';
import { createSandboxRail } from '@cowrie/collection-rails';
import { findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createDeposit, openCollection, readCollection, receiveInboundTransfer, ZDepositRequest, type DepositsContext } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const START = new Date('2031-03-01T09:00:00.000Z');

/** A new workspace and a context whose clock the test moves. */
async function setup(opts: { delayMs?: number } = {}) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const clock = { now: START };
  const ctx: DepositsContext = { db: env.db, rail: createSandboxRail(opts), logger: env.logger, now: () => clock.now };
  const deposit = (body: Record<string, unknown>, channels: readonly Channel[] = DEFAULT_CHANNELS) =>
    createDeposit(ctx, { workspaceId: workspace.id, channels }, ZDepositRequest.parse(body));
  const outcome = (body: Record<string, unknown>, channels?: readonly Channel[]) =>
    deposit(body, channels).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error: error as { code: string; message: string; details?: unknown } }),
    );
  const collections = () => env.db.collection.findMany({ where: { workspaceId: workspace.id }, orderBy: { id: 'asc' } });
  const expiredEvents = () => env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'collection.expired' } });
  return { workspaceId: workspace.id, ctx, clock, deposit, outcome, collections, expiredEvents };
}

const refusal = (message: string) => ({ code: 'invalid_request', message, details: { field: 'reference' } });

test('a repeat while the collection is pending, for the same amount and currency, answers the same account (another expires_in does not matter)', async () => {
  const s = await setup();
  const first = await s.deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-same', expires_in: 120 });
  s.clock.now = new Date(START.getTime() + 119_000);
  const again = await s.deposit({ channel: 'collection_va', amount: '5000.000000', currency: 'ngn', reference: 'dep-same', expires_in: 3600 });
  expect(again).toEqual(first);
  expect(first).toMatchObject({ channel: 'collection_va', status: 'pending' });
  expect(await s.collections()).toHaveLength(1);
});

test('a repeat after expires_at is 400 on reference naming the expiry; it expires the collection, sends collection.expired once and opens nothing', async () => {
  const s = await setup();
  const first = await s.deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-1', expires_in: 120 });
  expect(first).toMatchObject({ status: 'pending', account: { expires_at: '2031-03-01T09:02:00.000Z' } });
  s.clock.now = new Date(START.getTime() + 120_000);
  const message = 'The one-off account of reference dep-1 expired at 2031-03-01T09:02:00.000Z; use a new reference';
  // Concurrent repeats: each refused, one collection.expired between them.
  const repeats = await Promise.all(Array.from({ length: 5 }, () => s.outcome({ channel: 'collection_va', amount: 5000, reference: 'dep-1' })));
  for (const r of repeats) expect(r).toMatchObject({ ok: false, error: refusal(message) });
  const rows = await s.collections();
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 'expired', expiredAt: s.clock.now });
  expect(await s.expiredEvents()).toBe(1);
  expect(await env.db.accountOpening.count({ where: { workspaceId: s.workspaceId } })).toBe(0);
  // Later reads and repeats of the already expired collection: the same answer, no second event.
  expect((await readCollection(s.ctx, s.workspaceId, rows[0]!.id)).status).toBe('expired');
  expect(await s.outcome({ channel: 'collection_va', amount: 5000, reference: 'dep-1' })).toMatchObject({ ok: false, error: refusal(message) });
  expect(await s.expiredEvents()).toBe(1);
  // A new reference opens a new account.
  const fresh = await s.deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-2' });
  expect(fresh).toMatchObject({ status: 'pending' });
  expect(await s.collections()).toHaveLength(2);
});

test('a repeat after the collection was paid is 400 on reference, and writes nothing', async () => {
  const s = await setup();
  const first = await s.deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-paid' });
  if (!('account' in first)) throw new Error('expected an account');
  const paid = await receiveInboundTransfer(s.ctx, {
    provider: 'sandbox',
    providerReference: `paid-${s.workspaceId}`,
    accountNumber: first.account.account_number,
    amount: new Decimal(5000),
    currency: 'NGN',
    raw: { test: true },
  });
  expect(paid).toMatchObject({ matched: true, status: 'credited' });
  const before = await s.collections();
  const again = await s.outcome({ channel: 'collection_va', amount: 5000, reference: 'dep-paid' });
  expect(again).toMatchObject({ ok: false, error: refusal('The one-off account of reference dep-paid was already paid; use a new reference') });
  expect(await s.collections()).toEqual(before);
  expect((await findWallet(env.db, s.workspaceId, 'NGN'))!.balance.toFixed(6)).toBe('5000.000000');
});

test('a repeat for another amount or another currency is 400 on reference, and writes nothing', async () => {
  const s = await setup();
  // A deployment whose one-off accounts take NGN and EUR.
  const channels = DEFAULT_CHANNELS.map((c) => (c.id === 'collection_va' ? { ...c, currencies: ['NGN', 'EUR'] } : c));
  await s.deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-amount' }, channels);
  const before = await s.collections();
  expect(await s.outcome({ channel: 'collection_va', amount: 999, reference: 'dep-amount' }, channels)).toMatchObject({
    ok: false,
    error: refusal('reference dep-amount names a one-off account for 5000.000000 NGN; use a new reference for another amount'),
  });
  expect(await s.outcome({ channel: 'collection_va', amount: 5000, currency: 'EUR', reference: 'dep-amount' }, channels)).toMatchObject({
    ok: false,
    error: refusal('reference dep-amount names a one-off account for 5000.000000 NGN; use a new reference for another currency'),
  });
  expect(await s.outcome({ channel: 'collection_va', amount: 5000.000001, currency: 'EUR', reference: 'dep-amount' }, channels)).toMatchObject({
    ok: false,
    error: refusal('reference dep-amount names a one-off account for 5000.000000 NGN; use a new reference for another amount and currency'),
  });
  expect(await s.collections()).toEqual(before);
  expect(await env.db.accountOpening.count({ where: { workspaceId: s.workspaceId } })).toBe(0);
});

test('concurrent first requests of one reference with two amounts: one account is opened, only its amount is answered with it', async () => {
  const s = await setup({ delayMs: 200 });
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => s.outcome({ channel: 'collection_va', amount: i % 2 === 0 ? 10 : 11, reference: 'dep-race' })),
  );
  const rows = await s.collections();
  expect(rows).toHaveLength(1);
  const amount = rows[0]!.amount.toFixed(6);
  const accepted = results.flatMap((r) => (r.ok ? [r.value] : []));
  const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
  expect(accepted).toHaveLength(3);
  for (const a of accepted) expect(a).toMatchObject({ status: 'pending', account: { account_number: rows[0]!.accountNumber } });
  expect(refused).toHaveLength(3);
  for (const e of refused)
    expect(e).toMatchObject(refusal(`reference dep-race names a one-off account for ${amount} NGN; use a new reference for another amount`));
});

test('reserved_va is not a one-off account: a reference of an expired one-off account does not matter to it', async () => {
  const s = await setup();
  await s.deposit({ channel: 'collection_va', amount: 50, reference: 'dep-shared', expires_in: 60 });
  s.clock.now = new Date(START.getTime() + 61_000);
  const first = await s.deposit({ channel: 'reserved_va', reference: 'dep-shared' });
  const again = await s.deposit({ channel: 'reserved_va', reference: 'dep-shared', amount: 1 });
  expect(first).toMatchObject({ channel: 'reserved_va', status: 'active' });
  expect(again).toEqual(first);
  expect(await env.db.reservedAccount.count({ where: { workspaceId: s.workspaceId } })).toBe(1);
});

test("a deposit repeating the reference of a customer's collection (POST /v1/collections) is 400 on reference: it never answers that customer's account", async () => {
  const s = await setup();
  await openCollection(s.ctx, {
    workspaceId: s.workspaceId,
    source: 'collection',
    reference: 'order-5',
    amount: new Decimal(700),
    currency: 'NGN',
    expiresInSeconds: 3600,
    customer: { name: 'Ada Obi', email: 'ada@example.com' },
  });
  const repeat = await s.outcome({ channel: 'collection_va', amount: 700, reference: 'order-5' });
  expect(repeat).toEqual({
    ok: false,
    error: expect.objectContaining(refusal("reference order-5 names a customer's collection (POST /v1/collections); use a new reference")),
  });
  expect(await s.collections()).toHaveLength(1);
});

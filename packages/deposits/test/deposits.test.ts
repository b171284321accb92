// Risk: the inbound path crediting what it must not (a second transfer into a
// paid collection, an expired one, another currency), crediting twice under
// concurrency, or the ledger drifting from its entries; expiry emitting twice.
import { Decimal } from '@cowrie/core';
import { createSandboxRail } from '@cowrie/collection-rails';
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import {
  createCustomerReservedAccount,
  ensureBusinessReservedAccount,
  openCollection,
  readCollection,
  receiveInboundTransfer,
  type DepositsContext,
} from '../src';

let env: TestEnv;
let ctx: DepositsContext;
beforeAll(async () => {
  env = await createTestEnv();
  ctx = { db: env.db, rail: createSandboxRail(), logger: env.logger };
});
afterAll(() => env.cleanup());

async function collectionFor(amount: string, expiresInSeconds = 3600, now?: () => Date) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const { collection } = await openCollection(
    { ...ctx, now },
    { workspaceId: workspace.id, source: 'deposit', amount: new Decimal(amount), currency: 'NGN', expiresInSeconds },
  );
  return { workspaceId: workspace.id, collection };
}

const transfer = (accountNumber: string, amount: string, providerReference: string, currency = 'NGN') => ({
  provider: 'sandbox',
  providerReference,
  accountNumber,
  amount: new Decimal(amount),
  currency,
  senderName: 'Test Sender',
  raw: { test: true },
});

const ledgerOf = async (workspaceId: number) => (await findWallet(env.db, workspaceId, 'NGN'))!.balance.toFixed(6);

test('a matched transfer credits once; a second transfer into the paid collection is recorded, not credited', async () => {
  const { workspaceId, collection } = await collectionFor('500');
  const first = await receiveInboundTransfer(ctx, transfer(collection.accountNumber, '500', 'ref-a'));
  expect(first).toMatchObject({ matched: true, status: 'credited', channel: 'collection_va', collection_id: collection.id, workspace_id: workspaceId });
  expect(first.transaction_reference).toMatch(/^crd_/);
  const second = await receiveInboundTransfer(ctx, transfer(collection.accountNumber, '500', 'ref-b'));
  expect(second).toMatchObject({ matched: false, reason: 'collection_not_pending', collection_id: collection.id });
  expect(await ledgerOf(workspaceId)).toBe('500.000000');
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('ten concurrent deliveries of one transfer credit once', async () => {
  const { workspaceId, collection } = await collectionFor('40');
  const results = await Promise.all(Array.from({ length: 10 }, () => receiveInboundTransfer(ctx, transfer(collection.accountNumber, '40', 'dup-ref'))));
  expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
  expect(results.every((r) => r.matched)).toBe(true);
  expect(await ledgerOf(workspaceId)).toBe('40.000000');
  expect(await env.db.outboxEvent.count({ where: { workspaceId, event: 'collection.successful' } })).toBe(1);
});

test('two different transfers racing into one collection: one is credited, the other recorded', async () => {
  const { workspaceId, collection } = await collectionFor('60');
  const results = await Promise.all(['race-1', 'race-2', 'race-3'].map((r) => receiveInboundTransfer(ctx, transfer(collection.accountNumber, '60', r))));
  expect(results.filter((r) => r.matched)).toHaveLength(1);
  expect(results.filter((r) => r.reason === 'collection_not_pending')).toHaveLength(2);
  expect(await ledgerOf(workspaceId)).toBe('60.000000');
});

test('a transfer into a pending collection past its expiry, or in another currency, is not credited', async () => {
  const start = new Date('2030-01-01T00:00:00Z');
  const { workspaceId, collection } = await collectionFor('10', 60, () => start);
  const late = () => new Date(start.getTime() + 61_000);
  expect(await receiveInboundTransfer({ ...ctx, now: late }, transfer(collection.accountNumber, '10', 'late-1'))).toMatchObject({
    matched: false,
    reason: 'collection_expired',
  });
  const { collection: other } = await collectionFor('10');
  expect(await receiveInboundTransfer(ctx, transfer(other.accountNumber, '10', 'eur-1', 'EUR'))).toMatchObject({ matched: false, reason: 'currency_mismatch' });
  expect(await ledgerOf(workspaceId)).toBe('0.000000');
  expect(env.logLines.some((l) => l.includes('late-1') && l.includes('not credited'))).toBe(true);
});

test('expiry on read with an injected clock: concurrent reads mark it expired and emit one collection.expired', async () => {
  const start = new Date('2031-06-01T12:00:00Z');
  const { workspaceId, collection } = await collectionFor('15', 60, () => start);
  const before = await readCollection({ db: env.db, now: () => new Date(start.getTime() + 59_000) }, workspaceId, collection.id);
  expect(before.status).toBe('pending');
  const after = () => new Date(start.getTime() + 60_000);
  const reads = await Promise.all(Array.from({ length: 8 }, () => readCollection({ db: env.db, now: after }, workspaceId, collection.id)));
  expect(reads.every((r) => r.status === 'expired')).toBe(true);
  const evts = await env.db.outboxEvent.findMany({ where: { workspaceId, event: 'collection.expired' } });
  expect(evts).toHaveLength(1);
  expect(evts[0]!.payload).toMatchObject({ id: collection.id, reference: collection.reference, amount: '15.000000', account_number: collection.accountNumber });
  await expect(readCollection({ db: env.db }, workspaceId + 1000, collection.id)).rejects.toMatchObject({ code: 'not_found' });
});

test('reserved accounts: business and customer accounts credit any amount, with channel reserved_va', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const business = (await ensureBusinessReservedAccount(ctx, { workspaceId: workspace.id, currency: 'NGN' })).account;
  const customer = (
    await createCustomerReservedAccount(ctx, { workspaceId: workspace.id, currency: 'NGN', customer: { name: 'Ngozi', email: 'ngozi@example.com' } })
  ).account;
  expect(business.accountNumber).not.toBe(customer.accountNumber);
  const a = await receiveInboundTransfer(ctx, transfer(business.accountNumber, '12.345678', 'rsv-1'));
  const b = await receiveInboundTransfer(ctx, transfer(customer.accountNumber, '7', 'rsv-2'));
  expect(a).toMatchObject({ matched: true, channel: 'reserved_va', reserved_account_id: business.id });
  expect(b).toMatchObject({ matched: true, channel: 'reserved_va', reserved_account_id: customer.id });
  expect(await ledgerOf(workspace.id)).toBe('19.345678');
  const tx = await env.db.ledgerTransaction.findFirstOrThrow({ where: { providerReference: 'rsv-2' } });
  expect(tx).toMatchObject({ counterpartyEmail: 'ngozi@example.com', category: 'collection', channel: 'reserved_va' });
});

describe('a transfer paid before expires_at whose notification arrives after it', () => {
  // The rail's payment time (`paidAt`) decides, not the notification's arrival:
  // Paystack delivers again for hours when the gateway is down or answers 503.
  const start = new Date('2032-03-01T09:00:00Z');
  const at = (seconds: number) => () => new Date(start.getTime() + seconds * 1000);
  const paidAt = (seconds: number) => new Date(start.getTime() + seconds * 1000);
  const events = (workspaceId: number) => env.db.outboxEvent.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });

  test('a pending collection is credited once: status successful, paid_at the rail’s time, one collection.successful; its retry is a duplicate', async () => {
    const { workspaceId, collection } = await collectionFor('25', 60, at(0));
    const late = { ...transfer(collection.accountNumber, '25', 'late-in-time-1'), paidAt: paidAt(55) };
    const first = await receiveInboundTransfer({ ...ctx, now: at(64) }, late);
    expect(first).toMatchObject({ matched: true, status: 'credited', reason: null, collection_id: collection.id });
    const retry = await receiveInboundTransfer({ ...ctx, now: at(70) }, late);
    expect(retry).toMatchObject({ matched: true, duplicate: true, status: 'credited' });
    expect(await ledgerOf(workspaceId)).toBe('25.000000');
    const row = await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } });
    expect(row).toMatchObject({ status: 'successful', paidAt: paidAt(55), providerReference: 'late-in-time-1' });
    // A read after the expiry leaves a paid collection as it is.
    expect((await readCollection({ db: env.db, now: at(3600) }, workspaceId, collection.id)).status).toBe('successful');
    const evts = await events(workspaceId);
    expect(evts.map((e) => e.event)).toEqual(['collection.successful']);
    expect(evts[0]!.payload).toMatchObject({ id: collection.id, amount: '25.000000', paid_at: paidAt(55).toISOString() });
  });

  test('a collection a read marked expired meanwhile becomes successful: collection.expired, then collection.successful', async () => {
    const { workspaceId, collection } = await collectionFor('30', 60, at(0));
    expect((await readCollection({ db: env.db, now: at(61) }, workspaceId, collection.id)).status).toBe('expired');
    const outcome = await receiveInboundTransfer(
      { ...ctx, now: at(300) },
      { ...transfer(collection.accountNumber, '30', 'late-in-time-2'), paidAt: paidAt(59) },
    );
    expect(outcome).toMatchObject({ matched: true, status: 'credited', collection_id: collection.id });
    expect(await ledgerOf(workspaceId)).toBe('30.000000');
    expect(await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).toMatchObject({ status: 'successful', paidAt: paidAt(59) });
    expect((await events(workspaceId)).map((e) => e.event)).toEqual(['collection.expired', 'collection.successful']);
    // A second transfer into it is refused as into any paid collection.
    expect(
      await receiveInboundTransfer({ ...ctx, now: at(301) }, { ...transfer(collection.accountNumber, '30', 'late-in-time-3'), paidAt: paidAt(58) }),
    ).toMatchObject({ matched: false, reason: 'collection_not_pending' });
    expect(await ledgerOf(workspaceId)).toBe('30.000000');
  });

  test('paid at or after expires_at stays collection_expired, pending or marked expired; the other rules still hold', async () => {
    const { workspaceId, collection } = await collectionFor('35', 60, at(0));
    for (const [ref, seconds] of [
      ['paid-at-expiry', 60],
      ['paid-after-expiry', 61],
    ] as const) {
      const outcome = await receiveInboundTransfer({ ...ctx, now: at(65) }, { ...transfer(collection.accountNumber, '35', ref), paidAt: paidAt(seconds) });
      expect(outcome).toMatchObject({ matched: false, reason: 'collection_expired', collection_id: collection.id });
    }
    expect((await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).status).toBe('pending');
    expect((await readCollection({ db: env.db, now: at(66) }, workspaceId, collection.id)).status).toBe('expired');
    expect(
      await receiveInboundTransfer({ ...ctx, now: at(90) }, { ...transfer(collection.accountNumber, '35', 'paid-late-after-read'), paidAt: paidAt(62) }),
    ).toMatchObject({ matched: false, reason: 'collection_expired' });
    // In time but the wrong amount or currency: refused as before.
    expect(
      await receiveInboundTransfer({ ...ctx, now: at(91) }, { ...transfer(collection.accountNumber, '34', 'in-time-short'), paidAt: paidAt(10) }),
    ).toMatchObject({ matched: false, reason: 'amount_mismatch' });
    expect(
      await receiveInboundTransfer({ ...ctx, now: at(92) }, { ...transfer(collection.accountNumber, '35', 'in-time-eur', 'EUR'), paidAt: paidAt(10) }),
    ).toMatchObject({ matched: false, reason: 'currency_mismatch' });
    expect(await ledgerOf(workspaceId)).toBe('0.000000');
    expect((await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).status).toBe('expired');
  });

  test('a payment time later than the notification’s arrival counts as the arrival', async () => {
    const { workspaceId, collection } = await collectionFor('45', 60, at(0));
    const outcome = await receiveInboundTransfer(
      { ...ctx, now: at(10) },
      { ...transfer(collection.accountNumber, '45', 'future-paid-at'), paidAt: paidAt(3600) },
    );
    expect(outcome).toMatchObject({ matched: true, status: 'credited' });
    expect((await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).paidAt).toEqual(paidAt(10));
    expect(await ledgerOf(workspaceId)).toBe('45.000000');
  });

  test('reads expiring the collection race an in-time late notification delivered many times: one outcome, one credit', async () => {
    for (let round = 0; round < 5; round++) {
      const { workspaceId, collection } = await collectionFor('50', 60, at(0));
      const late = { ...transfer(collection.accountNumber, '50', `race-late-${round}`), paidAt: paidAt(30) };
      const other = { ...transfer(collection.accountNumber, '50', `race-late-other-${round}`), paidAt: paidAt(40) };
      const [reads, deliveries] = await Promise.all([
        Promise.all(Array.from({ length: 4 }, () => readCollection({ db: env.db, now: at(61) }, workspaceId, collection.id))),
        Promise.all([
          ...Array.from({ length: 4 }, () => receiveInboundTransfer({ ...ctx, now: at(61) }, late)),
          receiveInboundTransfer({ ...ctx, now: at(61) }, other),
        ]),
      ]);
      expect(reads.every((r) => r.status === 'expired' || r.status === 'successful')).toBe(true);
      expect(deliveries.filter((d) => d.matched && !d.duplicate)).toHaveLength(1);
      expect(deliveries.filter((d) => !d.matched).every((d) => d.reason === 'collection_not_pending')).toBe(true);
      expect(await ledgerOf(workspaceId)).toBe('50.000000');
      expect((await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).status).toBe('successful');
      const evts = (await events(workspaceId)).map((e) => e.event);
      expect(evts.filter((e) => e === 'collection.successful')).toHaveLength(1);
      expect(evts.filter((e) => e === 'collection.expired').length).toBeLessThanOrEqual(1);
      expect(evts.at(-1)).toBe('collection.successful');
      const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
      expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
    }
  });
});

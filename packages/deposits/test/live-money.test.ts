// Risk: in production, money that is not real crediting a live wallet, which
// can then be paid out for real: a sandbox notification (the sandbox route of a
// staging deployment, `cowrie sandbox transfer-in`) or a Paystack notification
// from its test domain, matched to a live workspace's account. And the reverse:
// real money credited to a test workspace. Real Postgres; the Paystack
// accounts come from the sandbox rail under Paystack's name (the inbound path
// matches by provider and account, not by who opened it).
import { Decimal, type Mode } from '@cowrie/core';
import { createSandboxRail, type CollectionRail, type InboundTransfer } from '@cowrie/collection-rails';
import { findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { listInboundPayments, openCollection, readCollection, receiveInboundTransfer } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const sandboxRail = createSandboxRail();
const paystackNamedRail: CollectionRail = { ...createSandboxRail(), name: 'paystack' };

/** A pending one-off collection of a new business's `mode` side, opened on `rail`. */
async function pendingCollection(mode: Mode, rail: CollectionRail, amount: string) {
  const { workspaceId } = await createWorkspaceWithKey(env.db, { mode });
  const { collection } = await openCollection(
    { db: env.db, rail },
    { workspaceId, source: 'deposit', amount: new Decimal(amount), currency: 'NGN', expiresInSeconds: 3600 },
  );
  return { workspaceId, collection };
}

const transfer = (provider: string, accountNumber: string, amount: string, providerReference: string, livemode?: boolean): InboundTransfer => ({
  provider,
  providerReference,
  accountNumber,
  amount: new Decimal(amount),
  currency: 'NGN',
  ...(livemode === undefined ? {} : { livemode }),
  raw: { test: true },
});

const ledgerOf = async (workspaceId: number) => (await findWallet(env.db, workspaceId, 'NGN'))!.balance.toFixed(6);
const production = () => ({ db: env.db, logger: env.logger, production: true });

test("in production a sandbox transfer into a live workspace's account is recorded, logged and credits nothing; the collection stays payable", async () => {
  const { workspaceId, collection } = await pendingCollection('live', sandboxRail, '75');
  const outcome = await receiveInboundTransfer(production(), transfer('sandbox', collection.accountNumber, '75', 'prod-sbx-live-1'));
  expect(outcome).toMatchObject({
    matched: false,
    duplicate: false,
    status: 'unmatched',
    reason: 'test_money_for_live_account',
    workspace_id: workspaceId,
    collection_id: collection.id,
    transaction_reference: null,
  });
  expect(await ledgerOf(workspaceId)).toBe('0.000000');
  expect(await env.db.outboxEvent.count({ where: { workspaceId, event: 'collection.successful' } })).toBe(0);
  expect((await readCollection({ db: env.db }, workspaceId, collection.id)).status).toBe('pending');
  expect(env.logLines.some((l) => l.includes('prod-sbx-live-1') && l.includes('test_money_for_live_account') && l.includes('"level":40'))).toBe(true);
  expect(await listInboundPayments(env.db, { status: 'unmatched', limit: 50 })).toContainEqual(
    expect.objectContaining({ provider_reference: 'prod-sbx-live-1', reason: 'test_money_for_live_account', workspace_id: workspaceId }),
  );
  // A repeat is a duplicate of the refusal, still credited to nobody.
  const again = await receiveInboundTransfer(production(), transfer('sandbox', collection.accountNumber, '75', 'prod-sbx-live-1'));
  expect(again).toMatchObject({ matched: false, duplicate: true, reason: 'test_money_for_live_account' });
  expect(await ledgerOf(workspaceId)).toBe('0.000000');
});

test("in production a sandbox transfer into a test workspace's account credits it", async () => {
  const { workspaceId, collection } = await pendingCollection('test', sandboxRail, '40');
  const outcome = await receiveInboundTransfer(production(), transfer('sandbox', collection.accountNumber, '40', 'prod-sbx-test-1'));
  expect(outcome).toMatchObject({ matched: true, status: 'credited', workspace_id: workspaceId });
  expect(await ledgerOf(workspaceId)).toBe('40.000000');
});

test("outside production the sandbox is live mode's rail, and its transfers credit live workspaces", async () => {
  const { workspaceId, collection } = await pendingCollection('live', sandboxRail, '15');
  const outcome = await receiveInboundTransfer({ db: env.db, logger: env.logger }, transfer('sandbox', collection.accountNumber, '15', 'dev-sbx-live-1'));
  expect(outcome).toMatchObject({ matched: true, status: 'credited', workspace_id: workspaceId });
  expect(await ledgerOf(workspaceId)).toBe('15.000000');
});

test('in production a Paystack transfer outside its live domain (livemode false or unknown) never credits a live workspace; a live one does', async () => {
  const a = await pendingCollection('live', paystackNamedRail, '120');
  const testDomain = await receiveInboundTransfer(production(), transfer('paystack', a.collection.accountNumber, '120', 'PSK_test_domain_1', false));
  expect(testDomain).toMatchObject({ matched: false, reason: 'test_money_for_live_account', workspace_id: a.workspaceId });
  const unknown = await receiveInboundTransfer(production(), transfer('paystack', a.collection.accountNumber, '120', 'PSK_no_domain_1'));
  expect(unknown).toMatchObject({ matched: false, reason: 'test_money_for_live_account' });
  expect(await ledgerOf(a.workspaceId)).toBe('0.000000');

  const live = await receiveInboundTransfer(production(), transfer('paystack', a.collection.accountNumber, '120', 'PSK_live_domain_1', true));
  expect(live).toMatchObject({ matched: true, status: 'credited', workspace_id: a.workspaceId });
  expect(await ledgerOf(a.workspaceId)).toBe('120.000000');
});

test('real money never credits a test workspace, in production or not', async () => {
  for (const [deps, reference] of [
    [production(), 'PSK_live_into_test_1'],
    [{ db: env.db, logger: env.logger }, 'PSK_live_into_test_2'],
  ] as const) {
    const { workspaceId, collection } = await pendingCollection('test', paystackNamedRail, '9');
    const outcome = await receiveInboundTransfer(deps, transfer('paystack', collection.accountNumber, '9', reference, true));
    expect(outcome).toMatchObject({ matched: false, reason: 'live_money_for_test_account', workspace_id: workspaceId });
    expect(await ledgerOf(workspaceId)).toBe('0.000000');
  }
});

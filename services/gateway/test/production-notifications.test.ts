// Risk: in production, money that is not real reaching a live wallet, from
// which it can be paid out for real: the sandbox notification route of a
// staging deployment crediting a live workspace's account, or a Paystack
// notification from its test domain crediting one on a real deployment.
// Each refusal must be acknowledged (200: a provider retries anything else),
// recorded for operators and logged, and credit nothing. Gateways run with
// NODE_ENV=production; Paystack is its local stand-in.
import { createHmac } from 'node:crypto';
import { findWallet } from '@cowrie/ledger';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';
import { createKeyFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: '9f2c1e7a4b8d03f6e5c2a19b7d4e8f0a3c6b1d9e2f7a4c8b',
  ENCRYPTION_KEY: '3a7f9c2e1b8d4f6a0c5e9b2d7f1a4c8e6b3d9f2a5c7e1b4d8f0a2c6e9b3d7f15',
};

type Gateway = Awaited<ReturnType<typeof startTestGateway>>;
const ledgerOf = async (gw: Gateway, workspaceId: number) => (await findWallet(gw.env.db, workspaceId, 'NGN'))!.balance.toFixed(6);
const refusedLogged = (gw: Gateway, reference: string) =>
  gw.env.logLines.some((l) => l.includes(reference) && l.includes('test_money_for_live_account') && l.includes('"level":40'));

describe('a staging deployment (every rail sandbox): the sandbox route credits test workspaces only', () => {
  const SANDBOX_SECRET = '6b1e9d4f2a7c03e8b5d1f6a9c2e7b4d0';
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startTestGateway({ ...PRODUCTION, ALLOW_SANDBOX_IN_PRODUCTION: 'true', COLLECTION_SANDBOX_SECRET: SANDBOX_SECRET });
  });
  afterAll(() => gw.close());

  const notify = (body: Record<string, unknown>) => {
    const rawBody = JSON.stringify(body);
    const signature = createHmac('sha512', SANDBOX_SECRET).update(rawBody).digest('hex');
    return call(gw.url, 'POST', '/rails/sandbox/notifications', { rawBody, headers: { 'x-sandbox-signature': signature } });
  };

  test("a live workspace's account: acknowledged, recorded and logged, nothing credited; its test side's account is credited", async () => {
    const { workspace, key: liveKey } = await createWorkspaceWithKey(gw.env.db, { name: 'Staging Ltd' });
    const testKey = await createKeyFor(gw.env.db, workspace.id, 'test');
    const live = await call(gw.url, 'POST', '/v1/deposits', { token: liveKey, body: { channel: 'reserved_va' } });
    const test = await call(gw.url, 'POST', '/v1/deposits', { token: testKey, body: { channel: 'reserved_va' } });
    expect([live.status, test.status]).toEqual([201, 201]);

    const refused = await notify({ reference: 'stg-live-1', account_number: live.body.data.account.account_number, amount: 500 });
    expect(refused.status).toBe(200);
    expect(refused.body.data).toEqual({ received: true, matched: false, duplicate: false, status: 'unmatched', reason: 'test_money_for_live_account' });
    expect(await ledgerOf(gw, workspace.id)).toBe('0.000000');
    expect(await gw.env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'collection.successful' } })).toBe(0);
    expect(refusedLogged(gw, 'stg-live-1')).toBe(true);

    const credited = await notify({ reference: 'stg-test-1', account_number: test.body.data.account.account_number, amount: 500 });
    expect(credited.body.data).toMatchObject({ matched: true, status: 'credited' });
    expect(await ledgerOf(gw, workspace.test_workspace_id)).toBe('500.000000');
  });
});

describe('a real deployment (every rail Paystack, live keys): a notification outside the live domain credits no live account', () => {
  const COLLECTION_KEY = 'sk_live_collections_standin_4d2a9f';
  const PAYOUT_KEY = 'sk_live_payouts_standin_7c1e3b';
  let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
  let gw: Gateway;
  beforeAll(async () => {
    standIn = await startPaystackStandIn({ secret: COLLECTION_KEY });
    gw = await startTestGateway({
      ...PRODUCTION,
      PAYOUT_RAIL: 'paystack',
      PAYOUT_PAYSTACK_SECRET_KEY: PAYOUT_KEY,
      COLLECTION_RAIL: 'paystack',
      PAYSTACK_SECRET_KEY: COLLECTION_KEY,
      PAYSTACK_BASE_URL: standIn.url,
      VERIFY_SMS_PROVIDER: 'termii',
      VERIFY_TERMII_API_KEY: 'termii-key-not-called',
      VERIFY_EMAIL_PROVIDER: 'smtp',
      VERIFY_SMTP_URL: 'smtp://127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await gw.close();
    await standIn.close();
  });

  const notify = (n: { rawBody: string; signature: string }) =>
    call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody: n.rawBody, headers: { 'x-paystack-signature': n.signature } });

  test('data.domain test (or none) is acknowledged, recorded and logged, nothing credited; data.domain live is credited', async () => {
    const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Live Ltd' });
    const opened = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'reserved_va' } });
    expect(opened.status).toBe(201);
    const accountNumber = opened.body.data.account.account_number;

    for (const [reference, domain] of [
      ['PSK_test_domain_1', 'test'],
      ['PSK_no_domain_1', undefined],
    ] as const) {
      const refused = await notify(paystackChargeSuccess(COLLECTION_KEY, { reference, amountKobo: 70000, accountNumber, domain }));
      expect(refused.status).toBe(200);
      expect(refused.body.data).toEqual({ received: true, matched: false, duplicate: false, status: 'unmatched', reason: 'test_money_for_live_account' });
      expect(refusedLogged(gw, reference)).toBe(true);
    }
    expect(await ledgerOf(gw, workspace.id)).toBe('0.000000');
    expect(await gw.env.db.inboundPayment.count({ where: { workspaceId: workspace.id, status: 'unmatched', reason: 'test_money_for_live_account' } })).toBe(2);

    const live = await notify(paystackChargeSuccess(COLLECTION_KEY, { reference: 'PSK_live_domain_1', amountKobo: 70000, accountNumber, domain: 'live' }));
    expect(live.body.data).toMatchObject({ matched: true, status: 'credited' });
    expect(await ledgerOf(gw, workspace.id)).toBe('700.000000');
  });

  test("a charge signed with the payouts business's key is that business's own charge: acknowledged, and nothing credited", async () => {
    const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Payout Key Ltd' });
    const opened = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'reserved_va' } });
    const accountNumber = opened.body.data.account.account_number;
    const signedByPayouts = await notify(
      paystackChargeSuccess(PAYOUT_KEY, { reference: 'PSK_payout_key_1', amountKobo: 90000, accountNumber, domain: 'live' }),
    );
    expect(signedByPayouts.status).toBe(200);
    expect(signedByPayouts.body.data).toEqual({ received: true, ignored: 'charge.success' });
    expect(await ledgerOf(gw, workspace.id)).toBe('0.000000');
    expect(await gw.env.db.inboundPayment.count({ where: { providerReference: 'PSK_payout_key_1' } })).toBe(0);
    // The same charge signed with the collections business's key is credited.
    const signedByCollections = await notify(
      paystackChargeSuccess(COLLECTION_KEY, { reference: 'PSK_payout_key_1', amountKobo: 90000, accountNumber, domain: 'live' }),
    );
    expect(signedByCollections.body.data).toMatchObject({ matched: true, status: 'credited' });
    expect(await ledgerOf(gw, workspace.id)).toBe('900.000000');
  });
});

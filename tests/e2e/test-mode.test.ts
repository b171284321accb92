// Risk: a `ck_test_` key that is a label only: test keys moving real money
// through the live rail, reading or changing live objects (or a live key
// test ones), test events delivered to live endpoints. Gateway, payout
// worker, verification dispatcher and webhook sender, with live payouts on a
// local Paystack stand-in, so any test-mode call to the live rail shows.
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { createKeyFor, createUserFor, createWorkspaceWithKey, startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startVerificationWorker, type RunningVerificationWorker } from '@cowrie/verification-dispatcher';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let standIn: PaystackStandIn;
let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let dispatcher: RunningVerificationWorker;
let sender: RunningWebhookWorker;
let receiver: HttpReceiver;
let liveKey: string;
let testKey: string;
let liveId: number;
let testId: number;
let session: string;

const get = (path: string, token: string) => call(stack.url, 'GET', path, { token });
const post = (path: string, token: string, body: unknown, headers: Record<string, string> = {}) => call(stack.url, 'POST', path, { token, body, headers });
const transfer = (token: string, amount = 100, headers: Record<string, string> = {}) =>
  post('/v1/transfers', token, { currency: 'NGN', amount, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' }, headers);
const railPosts = () => standIn.requests.filter((r) => r.method === 'POST' && r.path === '/transfer').length;
const available = async (token: string) =>
  (await get('/v1/balances', token)).body.data.find((b: { currency: string }) => b.currency === 'NGN').available as string;

beforeAll(async () => {
  standIn = await startPaystackStandIn();
  stack = await startPayoutStack({
    PAYOUT_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: standIn.secret,
    PAYSTACK_BASE_URL: standIn.url,
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  dispatcher = await startVerificationWorker(stack.env.config, stack.env.logger);
  sender = await startWebhookWorker(stack.env.config, stack.env.logger);
  receiver = await startHttpReceiver();
  const business = await createWorkspaceWithKey(stack.env.db, { name: 'Two Modes Ltd' });
  liveKey = business.key;
  liveId = business.workspace.id;
  testId = business.workspace.test_workspace_id;
  testKey = await createKeyFor(stack.env.db, liveId, 'test');
  expect(testKey).toMatch(/^ck_test_/);
  await fund(stack.env.db, liveId, 'NGN', '1000');
  await fund(stack.env.db, testId, 'NGN', '500');
  const user = await createUserFor(stack.env.db, liveId);
  session = (await call(stack.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).body.data.token;
});
afterAll(async () => {
  await sender?.stop();
  await dispatcher?.stop();
  await receiver?.close();
  await stack?.close();
  await standIn?.close();
});

test('each mode has its own wallets: a test key sees only test money, a live key only live money', async () => {
  expect(await available(liveKey)).toBe('1000.000000');
  expect(await available(testKey)).toBe('500.000000');
});

test('a test key pays out through the sandbox, never the live rail, and from the test wallet only', async () => {
  const before = railPosts();
  const res = await transfer(testKey, 100);
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject({ provider: 'sandbox', status: 'completed', businessId: testId });
  expect(railPosts()).toBe(before);
  expect(await available(testKey)).toBe('400.000000');
  expect(await available(liveKey)).toBe('1000.000000');
  // The same request with a live key goes to the live rail (here Paystack's stand-in).
  const liveRes = await transfer(liveKey, 100);
  expect(liveRes.status).toBe(201);
  expect(liveRes.body.data).toMatchObject({ provider: 'paystack', businessId: liveId });
  expect(railPosts()).toBe(before + 1);
});

test("/readyz names each mode's rails: the configured ones for live, the sandbox for test", async () => {
  const ready = await call(stack.url, 'GET', '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.data.rails).toEqual({
    live: { payouts: 'paystack', collections: 'sandbox', sms: 'sandbox', email: 'sandbox' },
    test: { payouts: 'sandbox', collections: 'sandbox', sms: 'sandbox', email: 'sandbox' },
  });
});

test("bank lookups of a test key use the sandbox bank list, not the live rail's", async () => {
  const banks = (await get('/v1/banks', testKey)).body.data as Array<{ bankCode: string; bankName: string }>;
  expect(banks.some((b) => b.bankName === 'Cowrie Sandbox Bank' || b.bankCode === '058')).toBe(true);
  const before = standIn.requests.length;
  const resolved = await post('/v1/banks/resolve', testKey, { account_number: '0123456789', bank_code: '058' });
  expect(resolved.status).toBe(200);
  expect(standIn.requests.length).toBe(before);
});

test('ledger rows, beneficiaries and idempotency keys of one mode are invisible to the other', async () => {
  const t = await transfer(testKey, 10, { 'Idempotency-Key': 'same-key-both-modes' });
  const l = await transfer(liveKey, 10, { 'Idempotency-Key': 'same-key-both-modes' });
  // One key string, two modes: two payouts, neither a replay of the other.
  expect(t.status).toBe(201);
  expect(l.status).toBe(201);
  expect(l.body.data.reference).not.toBe(t.body.data.reference);
  const refsOf = async (token: string) => ((await get('/v1/transactions?limit=100', token)).body.data as Array<{ reference: string }>).map((r) => r.reference);
  expect(await refsOf(testKey)).toContain(t.body.data.reference);
  expect(await refsOf(testKey)).not.toContain(l.body.data.reference);
  expect(await refsOf(liveKey)).not.toContain(t.body.data.reference);

  const beneficiary = await post('/v1/beneficiaries', testKey, { name: 'Test Payee', account_number: '0123456789', bank_code: '058', currency: 'NGN' });
  expect(beneficiary.status).toBe(201);
  const idsOf = async (token: string) => ((await get('/v1/beneficiaries', token)).body.data as Array<{ id: number }>).map((b) => b.id);
  expect(await idsOf(testKey)).toContain(beneficiary.body.data.id);
  expect(await idsOf(liveKey)).not.toContain(beneficiary.body.data.id);
  // A live key cannot pay a test beneficiary.
  const payLive = await post('/v1/withdrawals', liveKey, { currency: 'NGN', amount: 5, beneficiary_id: beneficiary.body.data.id });
  expect(payLive.status).toBe(404);
  expect(payLive.body.error.code).toBe('not_found');
});

test('a verification of one mode is not_found to the other; test codes go to the sandbox, marked test', async () => {
  const destination = '+2348030000123';
  const started = await post('/v1/verifications', testKey, { channel: 'sms', destination });
  expect(started.status).toBe(201);
  const reference = started.body.data.reference;
  const read = await get(`/v1/verifications/${reference}`, liveKey);
  expect(read.status).toBe(404);
  expect(read.body.error.code).toBe('not_found');
  // A check answers its outcome (docs/verify-contacts.md: Check): for another mode's reference, not_found, and the row is untouched.
  const check = await post(`/v1/verifications/${reference}/check`, liveKey, { code: '000000' });
  expect(check.body.data).toEqual({ status: 'failed', reason: 'not_found' });
  expect((await get(`/v1/verifications/${reference}`, testKey)).body.data).toMatchObject({ status: 'pending', attempts: 0 });
  const messages = await waitFor(async () => {
    const found = await readSandboxMessages(sandboxOutbox(stack.env.redis, stack.env.config), destination, 'test');
    return found.length ? found : null;
  });
  expect(messages[0]).toMatchObject({ reference, mode: 'test' });
  expect(await readSandboxMessages(sandboxOutbox(stack.env.redis, stack.env.config), destination, 'live')).toEqual([]);
  const checked = await post(`/v1/verifications/${reference}/check`, testKey, { code: messages[0]!.code });
  expect(checked.body.data.status).toBe('verified');
});

test('collections and reserved accounts of one mode are not_found to the other', async () => {
  const reserved = await post('/v1/reserved-accounts', testKey, { customer_name: 'Chidi Eze', customer_email: 'chidi@example.com', reference: 'cust-chidi' });
  expect(reserved.status).toBe(201);
  expect(reserved.body.data.account.bank).toBe('Cowrie Sandbox Bank');
  const collection = await post('/v1/collections', testKey, {
    amount: 2500,
    customer_name: 'Ada Obi',
    customer_email: 'ada@example.com',
    reference: 'inv-1',
    expires_in: 600,
  });
  expect(collection.status).toBe(201);
  for (const path of [`/v1/reserved-accounts/${reserved.body.data.id}`, `/v1/collections/${collection.body.data.id}`]) {
    expect((await get(path, testKey)).status).toBe(200);
    const other = await get(path, liveKey);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
  }
  // The same merchant reference in live mode is a new account, not the test one.
  const liveReserved = await post('/v1/reserved-accounts', liveKey, {
    customer_name: 'Chidi Eze',
    customer_email: 'chidi@example.com',
    reference: 'cust-chidi',
  });
  expect(liveReserved.status).toBe(201);
  expect(liveReserved.body.data.id).not.toBe(reserved.body.data.id);
});

test('webhook endpoints belong to a mode (Cowrie-Mode); a test event reaches only test endpoints, with livemode false', async () => {
  const asTest = { 'cowrie-mode': 'test' };
  const liveEndpoint = await call(stack.url, 'POST', '/webhook-endpoints', { token: session, body: { url: `${receiver.url}/live` } });
  const testEndpoint = await call(stack.url, 'POST', '/webhook-endpoints', { token: session, headers: asTest, body: { url: `${receiver.url}/test` } });
  expect(liveEndpoint.status).toBe(201);
  expect(testEndpoint.status).toBe(201);
  const listed = async (headers: Record<string, string>) =>
    ((await call(stack.url, 'GET', '/webhook-endpoints', { token: session, headers })).body.data as Array<{ id: number }>).map((e) => e.id);
  expect(await listed({})).toEqual([liveEndpoint.body.data.id]);
  expect(await listed(asTest)).toEqual([testEndpoint.body.data.id]);
  // A test endpoint cannot be reached from a live session view, and the reverse.
  expect((await call(stack.url, 'DELETE', `/webhook-endpoints/${testEndpoint.body.data.id}`, { token: session })).status).toBe(404);

  const paid = await transfer(testKey, 1);
  expect(paid.status).toBe(201);
  const delivered = await waitFor(() => {
    const hit = receiver.requests.find((r) => r.path === '/test' && JSON.parse(r.rawBody.toString()).data?.reference === paid.body.data.reference);
    return hit ? JSON.parse(hit.rawBody.toString()) : null;
  });
  expect(delivered.livemode).toBe(false);
  const livePaid = await transfer(liveKey, 1);
  const liveDelivered = await waitFor(() => {
    const hit = receiver.requests.find((r) => r.path === '/live' && JSON.parse(r.rawBody.toString()).data?.reference === livePaid.body.data.reference);
    return hit ? JSON.parse(hit.rawBody.toString()) : null;
  });
  expect(liveDelivered.livemode).toBe(true);
  // Neither mode's event went to the other's endpoint.
  expect(receiver.requests.some((r) => r.path === '/live' && JSON.parse(r.rawBody.toString()).data?.reference === paid.body.data.reference)).toBe(false);
  expect(receiver.requests.some((r) => r.path === '/test' && JSON.parse(r.rawBody.toString()).data?.reference === livePaid.body.data.reference)).toBe(false);

  const log = await waitFor(async () => {
    const rows = (await call(stack.url, 'GET', '/webhook-deliveries', { token: session, headers: asTest })).body.data as Array<{
      endpointId: number;
      livemode: boolean;
    }>;
    return rows.length ? rows : null;
  });
  expect(log.every((row) => row.endpointId === testEndpoint.body.data.id && row.livemode === false)).toBe(true);

  const bad = await call(stack.url, 'GET', '/webhook-endpoints', { token: session, headers: { 'cowrie-mode': 'staging' } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.code).toBe('invalid_request');
});

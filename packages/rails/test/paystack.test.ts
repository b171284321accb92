// Risk: the Paystack adapter paying the wrong amount or twice, hiding a rail
// failure, or mapping timeouts and outages to the wrong status. Runs against a
// local HTTP stand-in of Paystack's documented API.
import { randomBytes } from 'node:crypto';
import { Decimal, createRedis, loadConfig, type RedisClient } from '@cowrie/core';
import { RailError, RailInputError, createPaystackPayoutRail, createRails, type PayoutRail } from '../src';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';

let standIn: PaystackStandIn;
let rail: PayoutRail;
let redis: RedisClient;
let env: TestEnv;
const keyPrefix = `cowrie-t-rails-${randomBytes(4).toString('hex')}:`;

const reference = () => `snd_${randomBytes(12).toString('hex')}`;
const request = (accountNumber: string, extra: Partial<Parameters<PayoutRail['transfer']>[0]> = {}) => ({
  reference: reference(),
  amount: new Decimal('2500.50'),
  currency: 'NGN',
  accountNumber,
  bankCode: '058',
  accountName: 'Ada Obi',
  narration: 'Rent',
  ...extra,
});

beforeAll(async () => {
  standIn = await startPaystackStandIn();
  rail = createPaystackPayoutRail({ secretKey: standIn.secret, baseUrl: standIn.url, timeoutMs: 300 });
  redis = createRedis(loadConfig({ REDIS_URL: process.env.REDIS_URL }));
  env = await createTestEnv();
});
afterAll(async () => {
  await standIn.close();
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await env.cleanup();
});

test('listBanks follows the cursor, sends the secret as a Bearer token, and drops inactive banks', async () => {
  const banks = await rail.listBanks();
  expect(banks).toEqual([
    { bankCode: '044', bankName: 'Access Bank' },
    { bankCode: '058', bankName: 'Guaranty Trust Bank' },
    { bankCode: '057', bankName: 'Zenith Bank' },
  ]);
  const calls = standIn.requests.filter((r) => r.path === '/bank');
  expect(calls.map((c) => c.query.next ?? null)).toEqual([null, 'cursor-2']);
  expect(calls[0]!.query).toMatchObject({ country: 'nigeria', currency: 'NGN', use_cursor: 'true' });
  expect(calls.every((c) => c.authorization === `Bearer ${standIn.secret}`)).toBe(true);
});

test('resolveAccount maps the name; an unresolvable account or unknown bank is refused input', async () => {
  await expect(rail.resolveAccount({ accountNumber: '0123456789', bankCode: '058' })).resolves.toEqual({
    accountName: 'PAYSTACK NAME 6789',
    accountNumber: '0123456789',
    bankCode: '058',
    bankName: 'Guaranty Trust Bank',
  });
  await expect(rail.resolveAccount({ accountNumber: '9999999999', bankCode: '058' })).rejects.toMatchObject({
    name: 'RailInputError',
    field: 'account_number',
  });
  await expect(rail.resolveAccount({ accountNumber: '0123456789', bankCode: '000' })).rejects.toBeInstanceOf(RailInputError);
});

test('transfer creates a recipient, then sends kobo with our reference as Paystack reference', async () => {
  const req = request('0123456789');
  const result = await rail.transfer(req);
  expect(result).toMatchObject({ status: 'completed', providerReference: expect.stringMatching(/^TRF_/), accountName: 'Ada Obi' });
  expect(result.raw).toMatchObject({ status: true, data: { reference: req.reference, status: 'success' } });
  const recipient = standIn.requests.filter((r) => r.path === '/transferrecipient').pop()!;
  expect(recipient.body).toEqual({ type: 'nuban', name: 'Ada Obi', account_number: '0123456789', bank_code: '058', currency: 'NGN' });
  const sent = standIn.requests.filter((r) => r.path === '/transfer').pop()!;
  expect(sent.body).toEqual({ source: 'balance', amount: 250050, recipient: 'RCP_0123456789', reason: 'Rent', reference: req.reference, currency: 'NGN' });
});

test('kobo go out as the exact integer, never through a double', async () => {
  // 1e15 + 0.01 naira is 100000000000000001 kobo: a double would send ...000000.
  const req = request('0123456789', { amount: new Decimal('1000000000000000.01') });
  await rail.transfer(req);
  const sent = standIn.requests.filter((r) => r.path === '/transfer' && r.body?.reference === req.reference).pop()!;
  expect(sent.raw).toContain('"amount":100000000000000001,');
});

test('a transfer without a name resolves it first', async () => {
  const result = await rail.transfer(request('0123450000', { accountName: null }));
  expect(result).toMatchObject({ status: 'completed', accountName: 'PAYSTACK NAME 0000' });
});

test('failed and pending transfers map to failed and pending; refusals before sending are failures', async () => {
  await expect(rail.transfer(request('0000000006'))).resolves.toMatchObject({ status: 'failed' });
  await expect(rail.transfer(request('0000000007'))).resolves.toMatchObject({ status: 'pending', providerReference: expect.stringMatching(/^TRF_/) });
  await expect(rail.transfer(request('9999999999', { accountName: null }))).resolves.toMatchObject({
    status: 'failed',
    reason: expect.stringMatching(/resolve/),
  });
  const before = standIn.count('POST', '/transfer');
  await expect(rail.transfer(request('0123456789', { amount: new Decimal('10.005') }))).resolves.toMatchObject({
    status: 'failed',
    reason: expect.stringMatching(/2 decimal/),
  });
  await expect(rail.transfer(request('0123456789', { bankCode: null }))).resolves.toMatchObject({ status: 'failed' });
  expect(standIn.count('POST', '/transfer')).toBe(before);
});

test('a 5xx is a 502 that may have been sent; a timeout is a 504 that may have been sent', async () => {
  const fiveHundred = await rail.transfer(request('0000000009')).catch((e) => e);
  expect(fiveHundred).toBeInstanceOf(RailError);
  expect(fiveHundred).toMatchObject({ status: 502, maybeSent: true });
  const timeout = await rail.transfer(request('0000000008')).catch((e) => e);
  expect(timeout).toBeInstanceOf(RailError);
  expect(timeout).toMatchObject({ status: 504, maybeSent: true });
});

test('verifyTransfer answers the transfer Paystack holds, and null for one it never received', async () => {
  const req = request('0000000008');
  await rail.transfer(req).catch(() => undefined);
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'completed', accountName: 'Ada Obi' });
  await expect(rail.verifyTransfer(reference())).resolves.toBeNull();
  standIn.options.verifyDown = true;
  await expect(rail.verifyTransfer(req.reference)).rejects.toMatchObject({ status: 502 });
  standIn.options.verifyDown = false;
});

test('a resent reference Paystack already holds answers from verify, not a second transfer', async () => {
  const req = request('0123456789');
  await rail.transfer(req);
  await expect(rail.transfer(req)).resolves.toMatchObject({ status: 'completed' });
  expect([...standIn.transfers.keys()].filter((k) => k === req.reference)).toHaveLength(1);
});

test('a "duplicate reference" that verify cannot find yet is an unknown outcome (the rail has the reference), never a failure', async () => {
  const req = request('0123456789');
  await rail.transfer(req);
  standIn.options.hideFromVerify = true;
  try {
    const again = await rail.transfer(req).catch((e) => e);
    expect(again).toBeInstanceOf(RailError);
    expect(again).toMatchObject({ status: 502, maybeSent: true });
  } finally {
    standIn.options.hideFromVerify = false;
  }
});

test('the transfer says when the request that moves money leaves (onSend), and only then', async () => {
  const sent: string[] = [];
  await rail.transfer(request('0123456789', { onSend: () => sent.push('ok') }));
  await rail.transfer(request('0123456789', { bankCode: null, onSend: () => sent.push('no bank code') }));
  await rail.transfer(request('9999999999', { accountName: null, onSend: () => sent.push('unresolvable') }));
  expect(sent).toEqual(['ok']);
});

test('without a secret every call is 503 not configured; a refused secret is 503 too', async () => {
  const unconfigured = createPaystackPayoutRail({ baseUrl: standIn.url, timeoutMs: 300 });
  const before = standIn.requests.length;
  for (const call of [
    () => unconfigured.listBanks(),
    () => unconfigured.transfer(request('0123456789')),
    () => unconfigured.verifyTransfer('x'),
    () => unconfigured.resolveAccount({ accountNumber: '0123456789', bankCode: '058' }),
  ]) {
    await expect(call()).rejects.toMatchObject({ name: 'RailError', status: 503, maybeSent: false });
  }
  expect(standIn.requests.length).toBe(before);
  const wrongKey = createPaystackPayoutRail({ secretKey: 'sk_test_wrong', baseUrl: standIn.url, timeoutMs: 300 });
  await expect(wrongKey.listBanks()).rejects.toMatchObject({ status: 503 });
  // The refusal names the variable to fix: the shared key, or the payouts' own business when that is the one used.
  await expect(unconfigured.listBanks()).rejects.toThrow(/not configured \(PAYSTACK_SECRET_KEY\)/);
  const wrongOwnKey = createPaystackPayoutRail({ secretKey: 'sk_test_wrong', keySetting: 'PAYOUT_PAYSTACK_SECRET_KEY', baseUrl: standIn.url, timeoutMs: 300 });
  await expect(wrongOwnKey.listBanks()).rejects.toThrow(/PAYOUT_PAYSTACK_SECRET_KEY/);
});

test('createRails reaches Paystack through the shared PAYSTACK_* names, the payouts-only key, and the deprecated payout names alike', async () => {
  const unreachable = 'http://127.0.0.1:9';
  const railOf = (vars: Record<string, string>) =>
    createRails(loadConfig({ PAYOUT_RAIL: 'paystack', REDIS_KEY_PREFIX: `${keyPrefix}${randomBytes(3).toString('hex')}:`, ...vars }), {
      redis,
      sql: env.sql,
    }).forCurrency('NGN');
  const answered = async (vars: Record<string, string>) => {
    const before = standIn.count('GET', '/bank');
    await railOf(vars).listBanks();
    return standIn.count('GET', '/bank') > before;
  };
  // One key and URL for both rails.
  expect(await answered({ PAYSTACK_SECRET_KEY: standIn.secret, PAYSTACK_BASE_URL: standIn.url })).toBe(true);
  // A separate Paystack business for payouts: its key wins for payouts.
  expect(await answered({ PAYSTACK_SECRET_KEY: 'sk_test_collections_only', PAYOUT_PAYSTACK_SECRET_KEY: standIn.secret, PAYSTACK_BASE_URL: standIn.url })).toBe(
    true,
  );
  await expect(railOf({ PAYSTACK_SECRET_KEY: 'sk_test_collections_only', PAYSTACK_BASE_URL: standIn.url }).listBanks()).rejects.toMatchObject({ status: 503 });
  // The old payout names still point the payout rail (the shared URL is unreachable here).
  expect(
    await answered({
      PAYOUT_PAYSTACK_SECRET_KEY: standIn.secret,
      PAYSTACK_BASE_URL: unreachable,
      PAYOUT_PAYSTACK_BASE_URL: standIn.url,
      PAYOUT_PAYSTACK_TIMEOUT_MS: '300',
    }),
  ).toBe(true);
  await expect(railOf({ PAYSTACK_SECRET_KEY: standIn.secret, PAYSTACK_BASE_URL: unreachable }).listBanks()).rejects.toMatchObject({ status: 502 });
});

test('an unreachable Paystack is a 502 that certainly sent nothing', async () => {
  const down = createPaystackPayoutRail({ secretKey: 'sk', baseUrl: 'http://127.0.0.1:9', timeoutMs: 300 });
  await expect(down.transfer(request('0123456789'))).rejects.toMatchObject({ status: 502, maybeSent: false });
});

test('the bank list is cached in Redis for the TTL', async () => {
  const config = loadConfig({
    PAYOUT_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: standIn.secret,
    PAYSTACK_BASE_URL: standIn.url,
    PAYOUT_BANKS_CACHE_TTL_SECONDS: '1',
    REDIS_KEY_PREFIX: keyPrefix,
  });
  const rails = createRails(config, { redis, sql: env.sql });
  const paystack = rails.forCurrency('NGN');
  expect(paystack.id).toBe('paystack');
  const before = standIn.count('GET', '/bank');
  const first = await rails.banks(paystack);
  const second = await rails.banks(paystack);
  expect(second).toEqual(first);
  expect(standIn.count('GET', '/bank')).toBe(before + 2); // two pages, once
  expect(await redis.ttl(`${keyPrefix}rails:banks:paystack`)).toBeGreaterThan(0);
  await new Promise((r) => setTimeout(r, 1100));
  await rails.banks(paystack);
  expect(standIn.count('GET', '/bank')).toBe(before + 4);
  // resolve names the bank from the cached list
  const bankCalls = standIn.count('GET', '/bank');
  await paystack.resolveAccount({ accountNumber: '0123456789', bankCode: '057' });
  expect(standIn.count('GET', '/bank')).toBe(bankCalls);
});

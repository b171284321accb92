// Risk: an adapter that talks to Paystack differently from its documented API,
// leaks the secret, retries a non-idempotent opening, or misreads a
// notification; a sandbox whose accounts are not deterministic.
import { Decimal, JsonNumberText } from '@cowrie/core';
import {
  RailError,
  RailInputError,
  createCollectionRail,
  createPaystackCollectionRail,
  createSandboxRail,
  hmacSha512Hex,
  parsePaystackNotification,
  parseSandboxNotification,
  verifyHmacSha512,
} from '../src';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';

const SECRET = 'sk_test_standin_secret_key_0001';
let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.options.mode = 'ok';
});

const oneOff = (over: Partial<Parameters<ReturnType<typeof createSandboxRail>['openOneOffAccount']>[0]> = {}) => ({
  reference: 'col_abc',
  merchantReference: 'order-1',
  amount: new Decimal('1500.5'),
  currency: 'NGN',
  expiresAt: new Date('2030-01-01T00:00:00Z'),
  accountName: 'Acme Ltd',
  customer: { name: 'Ada Obi', email: 'ada@example.com' },
  ...over,
});

describe('sandbox rail', () => {
  test('one-off and reserved account numbers are deterministic, 10 digits, and never collide across kinds', async () => {
    const rail = createSandboxRail();
    const a = await rail.openOneOffAccount(oneOff());
    const b = await rail.openOneOffAccount(oneOff());
    const c = await rail.openOneOffAccount(oneOff({ reference: 'col_other' }));
    const r = await rail.openReservedAccount({
      reference: 'col_abc',
      merchantReference: 'x',
      currency: 'NGN',
      accountName: 'Acme',
      customer: { name: 'Acme' },
    });
    expect(a.accountNumber).toMatch(/^9\d{9}$/);
    expect(b.accountNumber).toBe(a.accountNumber);
    expect(c.accountNumber).not.toBe(a.accountNumber);
    expect(r.accountNumber).toMatch(/^8\d{9}$/);
    expect(a).toMatchObject({ accountName: 'Acme Ltd', bankName: 'Cowrie Sandbox Bank', bankCode: '999', expiresAt: new Date('2030-01-01T00:00:00Z') });
  });

  test('a forced failure (flag or rail_error reference) throws a RailError', async () => {
    await expect(createSandboxRail({ fail: true }).openOneOffAccount(oneOff())).rejects.toBeInstanceOf(RailError);
    await expect(createSandboxRail().openOneOffAccount(oneOff({ merchantReference: 'rail_error_1' }))).rejects.toBeInstanceOf(RailError);
    await expect(
      createSandboxRail().openReservedAccount({ reference: 'r', merchantReference: 'rail_error', currency: 'NGN', accountName: 'A', customer: { name: 'A' } }),
    ).rejects.toBeInstanceOf(RailError);
  });

  test('sandbox notifications are parsed, and malformed ones refused', () => {
    const ok = parseSandboxNotification({ reference: 'r1', account_number: '9000000001', amount: 250.5, currency: 'ngn' });
    expect(ok.kind === 'transfer' && ok.transfer).toMatchObject({ provider: 'sandbox', providerReference: 'r1', accountNumber: '9000000001', currency: 'NGN' });
    expect(ok.kind === 'transfer' && ok.transfer.amount.toFixed(6)).toBe('250.500000');
    // The sandbox never moves real money.
    expect(ok.kind === 'transfer' && ok.transfer.livemode).toBe(false);
    expect(parseSandboxNotification({ reference: 'r1', account_number: '12', amount: 1 })).toMatchObject({ kind: 'invalid' });
    expect(parseSandboxNotification({ reference: 'r1', account_number: '9000000001', amount: -1 })).toMatchObject({ kind: 'invalid' });
    expect(parseSandboxNotification({ reference: 'r1', account_number: '9000000001', amount: 0 })).toMatchObject({ kind: 'invalid' });
  });

  test('an amount the exact JSON reading kept as its digits (JsonNumberText) is read exactly or refused, never rounded', () => {
    const amountOf = (text: string) => {
      const parsed = parseSandboxNotification({ reference: 'r1', account_number: '9000000001', amount: new JsonNumberText(text) });
      return parsed.kind === 'transfer' ? parsed.transfer.amount.toFixed(6) : parsed;
    };
    expect(amountOf('12345678901.123456')).toBe('12345678901.123456');
    expect(amountOf('2500.0000000000001')).toEqual({ kind: 'invalid', reason: 'amount must have at most 6 decimal places' });
    expect(amountOf('12345678901.123456789')).toEqual({ kind: 'invalid', reason: 'amount must have at most 6 decimal places' });
  });

  test('paid_at, ISO 8601 with an offset, is when the payer paid; absent, the arrival counts; malformed or in the future it is refused', () => {
    const now = new Date('2030-05-01T12:00:00Z');
    const base = { reference: 'r1', account_number: '9000000001', amount: 10 };
    const paidAtOf = (paid_at: unknown) => {
      const parsed = parseSandboxNotification({ ...base, paid_at }, now);
      return parsed.kind === 'transfer' ? parsed.transfer.paidAt : parsed;
    };
    expect(paidAtOf('2030-05-01T11:59:00Z')).toEqual(new Date('2030-05-01T11:59:00Z'));
    expect(paidAtOf('2030-05-01T12:29:00+01:00')).toEqual(new Date('2030-05-01T11:29:00Z'));
    // A little clock skew between the bank and Cowrie is not a payment from the future.
    expect(paidAtOf('2030-05-01T12:00:30Z')).toEqual(new Date('2030-05-01T12:00:30Z'));
    const absent = parseSandboxNotification(base, now);
    expect(absent.kind === 'transfer' && absent.transfer.paidAt).toBeNull();
    for (const bad of ['2030-05-01T11:59:00', '2030-05-01', 'yesterday', '2030-13-01T00:00:00Z', 1746100000, '2030-05-01T12:05:00Z']) {
      expect(paidAtOf(bad)).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/^paid_at/) });
    }
  });

  test('createCollectionRail picks the sandbox by default', () => {
    expect(
      createCollectionRail({
        COLLECTION_RAIL: 'sandbox',
        COLLECTION_SANDBOX_FAIL: false,
        PAYSTACK_BASE_URL: 'x',
        PAYSTACK_TIMEOUT_MS: 1000,
        PAYSTACK_PREFERRED_BANK: 'wema-bank',
      }).name,
    ).toBe('sandbox');
  });
});

describe('Paystack adapter against a local stand-in', () => {
  const rail = () => createPaystackCollectionRail({ secretKey: SECRET, baseUrl: standIn.url, timeoutMs: 500, preferredBank: 'wema-bank' });

  test('a one-off account is a Pay-with-Transfer charge: amount in kobo, our reference, the expiry', async () => {
    const before = standIn.requests.length;
    const opened = await rail().openOneOffAccount(oneOff());
    const sent = standIn.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/charge', authorization: `Bearer ${SECRET}` });
    expect(sent[0]!.body).toMatchObject({
      email: 'ada@example.com',
      amount: '150050',
      currency: 'NGN',
      reference: 'col_abc',
      bank_transfer: { account_expires_at: '2030-01-01T00:00:00.000Z' },
    });
    expect(opened).toMatchObject({ accountName: 'PAYSTACK CHECKOUT', bankName: 'Test Bank', bankCode: 'test-bank', providerAccountReference: 'col_abc' });
    expect(opened.accountNumber).toMatch(/^\d{10}$/);
    expect(opened.expiresAt?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(JSON.stringify(opened.raw)).not.toContain(SECRET);
  });

  test('a reserved account creates the customer, then a dedicated account at the preferred bank', async () => {
    const before = standIn.requests.length;
    const opened = await rail().openReservedAccount({
      reference: 'rsv_1',
      merchantReference: 'cust-1',
      currency: 'NGN',
      accountName: 'Acme / Ada Obi',
      customer: { name: 'Ada Nneka Obi', email: 'ada@example.com' },
    });
    const sent = standIn.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/customer', '/dedicated_account']);
    expect(sent[0]!.body).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Nneka Obi' });
    expect(sent[1]!.body).toEqual({ customer: 'CUS_standin1', preferred_bank: 'wema-bank' });
    expect(opened).toMatchObject({ bankName: 'Wema Bank', bankCode: '035', accountName: 'KAROKART / ADA NNEKA OBI' });
    expect(opened.accountNumber).toMatch(/^99\d{8}$/);
  });

  test('the business (no email) gets a stable placeholder email', async () => {
    const before = standIn.requests.length;
    await rail().openReservedAccount({
      reference: 'rsv_Biz 1',
      merchantReference: 'business_ngn',
      currency: 'NGN',
      accountName: 'Acme',
      customer: { name: 'Acme' },
    });
    expect(standIn.requests[before]!.body.email).toBe('rsv_biz-1@accounts.cowrie.invalid');
  });

  test.each([
    ['a 5xx', 'error_500', /HTTP 500: An error occurred/, 502],
    ['a refusal', 'refuse', /refused charge \(HTTP 400\): Dedicated NUBAN not available/, 502],
    ['no answer within the timeout', 'slow', /did not answer within 500 ms/, 504],
  ] as const)('%s becomes a RailError and is not retried', async (_name, mode, message, status) => {
    standIn.options.mode = mode;
    const before = standIn.requests.length;
    const err = await rail()
      .openOneOffAccount(oneOff())
      .catch((e) => e);
    expect(err).toBeInstanceOf(RailError);
    expect(err).toMatchObject({ provider: 'paystack', status });
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain(SECRET);
    expect(standIn.requests.length - before).toBe(1);
  });

  test('a wrong secret key is a RailError (401 from the provider: refused credentials, 503)', async () => {
    const before = standIn.count('POST', '/charge');
    const err = await createPaystackCollectionRail({ secretKey: 'sk_wrong', baseUrl: standIn.url, timeoutMs: 500 })
      .openOneOffAccount(oneOff())
      .catch((e) => e);
    expect(err).toBeInstanceOf(RailError);
    expect(err).toMatchObject({
      provider: 'paystack',
      status: 503,
      maybeSent: false,
      message: expect.stringMatching(/credentials; check PAYSTACK_SECRET_KEY/),
    });
    expect(err.message).not.toContain('sk_wrong');
    expect(standIn.requests.at(-1)).toMatchObject({ path: '/charge', authorization: 'Bearer sk_wrong' });
    expect(standIn.count('POST', '/charge')).toBe(before + 1);
  });

  test('an unreachable provider is a RailError', async () => {
    const err = await createPaystackCollectionRail({ secretKey: SECRET, baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 })
      .openOneOffAccount(oneOff())
      .catch((e) => e);
    expect(err).toBeInstanceOf(RailError);
    expect(err).toMatchObject({ provider: 'paystack', status: 502, maybeSent: false });
  });

  test("an amount finer than a kobo is the caller's input error, sent nowhere", async () => {
    const before = standIn.requests.length;
    await expect(rail().openOneOffAccount(oneOff({ amount: new Decimal('10.001') }))).rejects.toBeInstanceOf(RailInputError);
    await expect(rail().openOneOffAccount(oneOff({ amount: new Decimal('10.001') }))).rejects.toMatchObject({
      field: 'amount',
      message: 'amount must have at most 2 decimal places on this collection rail',
    });
    expect(standIn.requests.length).toBe(before);
  });
});

describe('Paystack notifications', () => {
  test('the signature is HMAC-SHA512 of the raw body with the secret key', () => {
    const { rawBody, signature } = paystackChargeSuccess(SECRET, { reference: 'T1', amountKobo: 100, accountNumber: '9930000902' });
    expect(verifyHmacSha512(SECRET, Buffer.from(rawBody), signature)).toBe(true);
    expect(verifyHmacSha512(SECRET, Buffer.from(rawBody), signature.toUpperCase())).toBe(true);
    expect(verifyHmacSha512('sk_other', Buffer.from(rawBody), signature)).toBe(false);
    expect(verifyHmacSha512(SECRET, Buffer.from(rawBody + ' '), signature)).toBe(false);
    expect(verifyHmacSha512(SECRET, Buffer.from(rawBody), undefined)).toBe(false);
    expect(verifyHmacSha512(SECRET, Buffer.from(rawBody), 'abc')).toBe(false);
    expect(hmacSha512Hex(SECRET, rawBody)).toBe(signature);
  });

  test('charge.success by transfer becomes an inbound transfer in major units', () => {
    const { payload } = paystackChargeSuccess(SECRET, { reference: 'T1', amountKobo: 150050, accountNumber: '9930000902' });
    const parsed = parsePaystackNotification(payload);
    expect(parsed.kind).toBe('transfer');
    if (parsed.kind !== 'transfer') return;
    expect(parsed.transfer).toMatchObject({
      provider: 'paystack',
      providerReference: 'T1',
      accountNumber: '9930000902',
      currency: 'NGN',
      senderName: 'RANDALL AKANBI HORTON',
      senderAccountNumber: 'XXXXXX0011',
    });
    expect(parsed.transfer.amount.toFixed(6)).toBe('1500.500000');
  });

  test("paid_at is Paystack's time of the payment; absent or unreadable, the notification's arrival counts", () => {
    const paidAtOf = (paidAt: string | null | undefined) => {
      const { payload } = paystackChargeSuccess(SECRET, { reference: 'T4', amountKobo: 100, accountNumber: '9930000902', paidAt });
      const parsed = parsePaystackNotification(payload);
      return parsed.kind === 'transfer' ? parsed.transfer.paidAt : parsed.kind;
    };
    expect(paidAtOf('2030-01-01T10:42:20.000Z')).toEqual(new Date('2030-01-01T10:42:20.000Z'));
    expect(paidAtOf('2030-01-01T11:42:20+01:00')).toEqual(new Date('2030-01-01T10:42:20.000Z'));
    expect(paidAtOf(null)).toBeNull();
    expect(paidAtOf('not a time')).toBeNull();
  });

  test("livemode is Paystack's data.domain: live money only when it says `live` (absent or `test`: not live)", () => {
    const livemodeOf = (domain: string | undefined) => {
      const { payload } = paystackChargeSuccess(SECRET, { reference: 'T3', amountKobo: 100, accountNumber: '9930000902', domain });
      const parsed = parsePaystackNotification(payload);
      return parsed.kind === 'transfer' ? parsed.transfer.livemode : parsed.kind;
    };
    expect(livemodeOf('live')).toBe(true);
    expect(livemodeOf('test')).toBe(false);
    expect(livemodeOf(undefined)).toBe(false);
    expect(livemodeOf('LIVE')).toBe(false);
  });

  test('other events are ignored and malformed ones invalid', () => {
    expect(parsePaystackNotification({ event: 'transfer.success', data: {} })).toEqual({ kind: 'ignored', event: 'transfer.success' });
    expect(parsePaystackNotification({ event: 'charge.success', data: { reference: 'x', status: 'success', amount: 'lots', currency: 'NGN' } }).kind).toBe(
      'invalid',
    );
    expect(parsePaystackNotification({}).kind).toBe('invalid');
    const card = paystackChargeSuccess(SECRET, { reference: 'T2', amountKobo: 100, accountNumber: '1' }).payload;
    (card.data as any).channel = 'card';
    expect(parsePaystackNotification(card).kind).toBe('ignored');
  });
});

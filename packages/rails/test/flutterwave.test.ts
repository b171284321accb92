// Risk: the Flutterwave adapter misreads its v3 transfer API: sends an amount
// through a double or in minor units, calls a failure that may have sent money
// a definite failure (the payout would fail over and pay twice), calls the
// destination's failure the rail's (or the other way round), resends on a
// "duplicate reference", or leaks the key. Real HTTP against the stand-in.
import { randomBytes } from 'node:crypto';
import { Decimal } from '@cowrie/core';
import { RailError, RailInputError, createFlutterwaveRail, parseFlutterwaveTransferNotification, verifyFlutterwaveHash, type PayoutRail } from '../src';
import { flutterwaveTransferEvent, startFlutterwaveStandIn, type FlutterwaveStandIn } from '../testing';

let standIn: FlutterwaveStandIn;
let rail: PayoutRail;

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
  standIn = await startFlutterwaveStandIn();
  rail = createFlutterwaveRail({ secretKey: standIn.secret, baseUrl: standIn.url, timeoutMs: 300 });
});
afterAll(() => standIn.close());
afterEach(() => {
  standIn.options.balance = null;
  standIn.options.instant = true;
  standIn.options.fetchDown = false;
});

test('listBanks reads GET /v3/banks/NG with the secret as a Bearer token', async () => {
  await expect(rail.listBanks()).resolves.toEqual([
    { bankCode: '044', bankName: 'Access Bank' },
    { bankCode: '058', bankName: 'GTBank Plc' },
    { bankCode: '057', bankName: 'Zenith Bank' },
  ]);
  expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v3/banks/NG', authorization: `Bearer ${standIn.secret}` });
});

test('resolveAccount posts to /v3/accounts/resolve; an unresolvable account or unknown bank is refused input', async () => {
  await expect(rail.resolveAccount({ accountNumber: '0123456789', bankCode: '058' })).resolves.toEqual({
    accountName: 'FLW NAME 6789',
    accountNumber: '0123456789',
    bankCode: '058',
    bankName: 'GTBank Plc',
  });
  expect(standIn.requests.at(-1)!.body).toEqual({ account_number: '0123456789', account_bank: '058' });
  await expect(rail.resolveAccount({ accountNumber: '9999999999', bankCode: '058' })).rejects.toMatchObject({
    name: 'RailInputError',
    field: 'account_number',
  });
  await expect(rail.resolveAccount({ accountNumber: '0123456789', bankCode: '000' })).rejects.toBeInstanceOf(RailInputError);
});

test('a transfer goes out in major units with our reference; SUCCESSFUL is completed, with Flutterwave id as provider reference', async () => {
  const req = request('0123456789');
  const result = await rail.transfer(req);
  expect(result).toMatchObject({ status: 'completed', providerReference: expect.stringMatching(/^\d+$/), accountName: 'Ada Obi' });
  const sent = standIn.requests.filter((r) => r.path === '/v3/transfers' && r.method === 'POST').pop()!;
  expect(sent.body).toEqual({
    account_bank: '058',
    account_number: '0123456789',
    amount: 2500.5,
    narration: 'Rent',
    currency: 'NGN',
    reference: req.reference,
    debit_currency: 'NGN',
    beneficiary_name: 'Ada Obi',
  });
  expect(sent.raw).toContain('"amount":2500.50,');
});

test('major units go out with their exact digits, never through a double', async () => {
  const req = request('0123456789', { amount: new Decimal('1000000000000000.01') });
  await rail.transfer(req);
  const sent = standIn.requests.filter((r) => r.body?.reference === req.reference).pop()!;
  expect(sent.raw).toContain('"amount":1000000000000000.01,');
});

test('NEW is pending until Flutterwave settles it; verify by reference reads the settled state', async () => {
  const req = request('0000000007');
  await expect(rail.transfer(req)).resolves.toMatchObject({ status: 'pending' });
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'pending' });
  standIn.complete(req.reference);
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'completed' });
  standIn.reverse(req.reference);
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'reversed' });
  await expect(rail.verifyTransfer(reference())).resolves.toBeNull();
});

test('a transfer list that was not filtered by reference is no proof of absence: verify throws (ask again), never answers null', async () => {
  const paid = request('0123456789');
  await rail.transfer(paid);
  standIn.options.listIgnoresReference = true;
  try {
    // Another reference's list holds the paid transfer: "not found" there would let the grace window fail a payout that may be paid.
    const missing = reference();
    const error = await rail.verifyTransfer(missing).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RailError);
    expect(error).toMatchObject({ maybeSent: true });
    // A transfer that is in the list is still read from it.
    await expect(rail.verifyTransfer(paid.reference)).resolves.toMatchObject({ status: 'completed' });
  } finally {
    standIn.options.listIgnoresReference = false;
  }
  // Filtered and empty: Flutterwave holds nothing under that reference.
  await expect(rail.verifyTransfer(reference())).resolves.toBeNull();
});

test("a FAILED for a wrong account is the destination's failure; insufficient funds is the rail's own", async () => {
  await expect(rail.transfer(request('0000000006'))).resolves.toMatchObject({
    status: 'failed',
    failure: 'destination',
    reason: expect.stringMatching(/Account resolve failed/),
  });
  standIn.options.balance = 100;
  await expect(rail.transfer(request('0123456789'))).resolves.toMatchObject({
    status: 'failed',
    failure: 'rail',
    reason: expect.stringMatching(/Insufficient funds/),
  });
  // Settling later as FAILED for the same reason is the rail's too.
  standIn.options.balance = null;
  const req = request('0000000007');
  await rail.transfer(req);
  const transfer = standIn.transfers.get(req.reference)!;
  Object.assign(transfer, { status: 'FAILED', complete_message: 'DISBURSE FAILED: Insufficient funds in customer wallet' });
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'failed', failure: 'rail' });
});

test('refusals before sending are failures and send nothing', async () => {
  const before = standIn.count('POST', '/v3/transfers');
  await expect(rail.transfer(request('0123456789', { amount: new Decimal('10.005') }))).resolves.toMatchObject({ status: 'failed', failure: 'destination' });
  await expect(rail.transfer(request('0123456789', { bankCode: null }))).resolves.toMatchObject({ status: 'failed' });
  expect(standIn.count('POST', '/v3/transfers')).toBe(before);
});

test('a 5xx is a 502 that may have been sent; a timeout is a 504 that may have been sent', async () => {
  const fiveHundred = await rail.transfer(request('0000000009')).catch((e) => e);
  expect(fiveHundred).toBeInstanceOf(RailError);
  expect(fiveHundred).toMatchObject({ status: 502, maybeSent: true });
  const recordedThenHung = request('0000000008');
  const timeout = await rail.transfer(recordedThenHung).catch((e) => e);
  expect(timeout).toMatchObject({ status: 504, maybeSent: true });
  // It had recorded it: asking finds it.
  await expect(rail.verifyTransfer(recordedThenHung.reference)).resolves.toMatchObject({ status: 'completed' });
  const hung = await rail.transfer(request('0000000005')).catch((e) => e);
  expect(hung).toMatchObject({ status: 504, maybeSent: true });
});

test('a 5xx after recording is ambiguous, and the transfer is there when asked', async () => {
  standIn.options.behaviour = () => ({ record: true, answer: '5xx' });
  try {
    const req = request('0123456789');
    await expect(rail.transfer(req)).rejects.toMatchObject({ status: 502, maybeSent: true });
    await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'completed' });
  } finally {
    standIn.options.behaviour = undefined;
  }
});

test('a resent reference answers from the transfer Flutterwave holds; one it cannot show yet is unknown, never a failure', async () => {
  const req = request('0123456789');
  await rail.transfer(req);
  await expect(rail.transfer(req)).resolves.toMatchObject({ status: 'completed' });
  expect([...standIn.transfers.keys()].filter((k) => k === req.reference)).toHaveLength(1);
  standIn.options.behaviour = () => ({ record: true, answer: 'ok', visibleAfterMs: 60_000 });
  try {
    const hidden = request('0123456789');
    await rail.transfer(hidden);
    await expect(rail.transfer(hidden)).rejects.toMatchObject({ name: 'RailError', status: 502, maybeSent: true });
  } finally {
    standIn.options.behaviour = undefined;
  }
});

test('a rail that is down refuses before accepting: a 502 that certainly sent nothing', async () => {
  await standIn.goDown();
  try {
    await expect(rail.transfer(request('0123456789'))).rejects.toMatchObject({ status: 502, maybeSent: false });
  } finally {
    await standIn.comeUp();
  }
  await expect(rail.transfer(request('0123456789'))).resolves.toMatchObject({ status: 'completed' });
});

test('verify that cannot be answered is an error, not "not found"', async () => {
  standIn.options.fetchDown = true;
  await expect(rail.verifyTransfer(reference())).rejects.toMatchObject({ status: 502, maybeSent: false });
});

test('without a key every call is 503 not configured and nothing is sent; a refused key is 503', async () => {
  const unconfigured = createFlutterwaveRail({ baseUrl: standIn.url, timeoutMs: 300 });
  const before = standIn.requests.length;
  for (const call of [() => unconfigured.listBanks(), () => unconfigured.transfer(request('0123456789')), () => unconfigured.verifyTransfer('x')]) {
    await expect(call()).rejects.toMatchObject({ name: 'RailError', status: 503, maybeSent: false });
  }
  expect(standIn.requests.length).toBe(before);
  const wrongKey = createFlutterwaveRail({ secretKey: 'FLWSECK_TEST-wrong', baseUrl: standIn.url, timeoutMs: 300 });
  const refused = await wrongKey.transfer(request('0123456789')).catch((e) => e);
  expect(refused).toMatchObject({ status: 503, maybeSent: false });
  expect(JSON.stringify(refused)).not.toContain('FLWSECK_TEST-wrong');
  expect(refused.message).not.toContain('FLWSECK_TEST-wrong');
});

test('the webhook: verif-hash is compared exactly; a transfer event names its reference', () => {
  const { rawBody, headers } = flutterwaveTransferEvent(standIn.hash, { id: 1, reference: 'snd_abc', status: 'SUCCESSFUL' });
  expect(verifyFlutterwaveHash(standIn.hash, headers['verif-hash'])).toBe(true);
  expect(verifyFlutterwaveHash(standIn.hash, 'wrong')).toBe(false);
  expect(verifyFlutterwaveHash(standIn.hash, undefined)).toBe(false);
  expect(parseFlutterwaveTransferNotification(JSON.parse(rawBody))).toEqual({ kind: 'transfer', event: 'transfer.completed', reference: 'snd_abc' });
  expect(parseFlutterwaveTransferNotification({ event: 'charge.completed', data: {} })).toEqual({ kind: 'other' });
  expect(parseFlutterwaveTransferNotification({ event: 'transfer.completed', data: {} })).toMatchObject({ kind: 'invalid' });
});

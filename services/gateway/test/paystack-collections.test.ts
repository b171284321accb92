// Risk: money credited for a forged, repeated, short or misdirected transfer;
// a matched transfer not crediting the wallet once through the ledger, or its
// collection.successful event missing; the Paystack adapter untested end to end.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { findWallet, renderBalance } from '@cowrie/ledger';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';
import { call, startTestGateway } from '../testing';

const SECRET = 'sk_test_gateway_standin_0123456789';
let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
  gw = await startTestGateway({ COLLECTION_RAIL: 'paystack', PAYSTACK_SECRET_KEY: SECRET, PAYSTACK_BASE_URL: standIn.url, PAYSTACK_TIMEOUT_MS: '500' });
});
afterAll(async () => {
  await gw.close();
  await standIn.close();
});
beforeEach(() => {
  standIn.options.mode = 'ok';
});

const notify = (rawBody: string, signature?: string) =>
  call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody, headers: signature === undefined ? {} : { 'x-paystack-signature': signature } });
const balance = async (workspaceId: number) => renderBalance((await findWallet(gw.env.db, workspaceId, 'NGN'))!);
const events = (workspaceId: number, event: string) => gw.env.db.outboxEvent.findMany({ where: { workspaceId, event }, orderBy: { id: 'asc' } });

async function oneOff(amount: number) {
  const ws = await createWorkspaceWithKey(gw.env.db, { name: 'Paystack Co' });
  const res = await call(gw.url, 'POST', '/v1/deposits', { token: ws.key, body: { channel: 'collection_va', amount } });
  expect(res.status).toBe(201);
  const row = await gw.env.db.collection.findFirstOrThrow({ where: { workspaceId: ws.workspace.id } });
  return { ...ws, account: res.body.data.account, row };
}

test('a one-off account opened through Paystack; its transfer credits the wallet once and emits collection.successful', async () => {
  const { workspace, account, row } = await oneOff(1500.5);
  expect(account).toMatchObject({ bank: 'Test Bank', bank_code: 'test-bank', account_name: 'PAYSTACK CHECKOUT' });
  expect(row.provider).toBe('paystack');
  const charge = standIn.requests.filter((r) => r.path === '/charge').at(-1)!;
  expect(charge.body).toMatchObject({ amount: '150050', reference: row.railReference });

  const { rawBody, signature } = paystackChargeSuccess(SECRET, {
    reference: row.railReference,
    amountKobo: 150050,
    accountNumber: account.account_number,
    channel: 'bank_transfer',
  });
  const first = await notify(rawBody, signature);
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual({ received: true, matched: true, duplicate: false, status: 'credited', reason: null });
  const again = await notify(rawBody, signature);
  expect(again.body.data).toMatchObject({ matched: true, duplicate: true });

  expect(await balance(workspace.id)).toMatchObject({ available: '1500.500000', ledger: '1500.500000', pending: '0.000000' });
  const credits = await gw.env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id } });
  expect(credits).toHaveLength(1);
  expect(credits[0]).toMatchObject({
    type: 'credit',
    direction: 'in',
    channel: 'collection_va',
    status: 'completed',
    provider: 'paystack',
    providerReference: row.railReference,
    counterpartyName: 'RANDALL AKANBI HORTON',
  });
  const collection = await gw.env.db.collection.findUniqueOrThrow({ where: { id: row.id } });
  expect(collection).toMatchObject({ status: 'successful', providerReference: row.railReference, ledgerTransactionId: credits[0]!.id });
  const evts = await events(workspace.id, 'collection.successful');
  expect(evts).toHaveLength(1);
  expect(evts[0]!.payload).toMatchObject({
    id: row.id,
    reference: row.reference,
    amount: '1500.500000',
    currency: 'NGN',
    account_number: account.account_number,
    provider_reference: row.railReference,
  });
});

test('a charge paid before expires_at whose notification arrives after it is credited, pending or already read as expired; one paid after it is not', async () => {
  const read = (token: string, id: number) => call(gw.url, 'GET', `/v1/collections/${id}`, { token });
  // The minimum expires_in is 60 s: each expiry is moved into the past instead of waiting.
  const expiredAgo = async (row: { id: number }, ms: number) => {
    const expiresAt = new Date(Date.now() - ms);
    await gw.env.db.collection.update({ where: { id: row.id }, data: { expiresAt } });
    return expiresAt;
  };
  const chargeOf = (row: { railReference: string }, account: { account_number: string }, paidAt: Date) =>
    paystackChargeSuccess(SECRET, { reference: row.railReference, amountKobo: 250000, accountNumber: account.account_number, paidAt: paidAt.toISOString() });

  // Paid 6 s before expires_at, notified 4 s after it (Paystack delivering again after an outage).
  const pending = await oneOff(2500);
  const expiresAt = await expiredAgo(pending.row, 4000);
  const late = chargeOf(pending.row, pending.account, new Date(expiresAt.getTime() - 6000));
  const first = await notify(late.rawBody, late.signature);
  expect(first.body.data).toEqual({ received: true, matched: true, duplicate: false, status: 'credited', reason: null });
  expect((await notify(late.rawBody, late.signature)).body.data).toMatchObject({ matched: true, duplicate: true });
  const after = await read(pending.key, pending.row.id);
  expect(after.body.data).toMatchObject({ status: 'successful', amount_paid: '2500.000000', paid_at: new Date(expiresAt.getTime() - 6000).toISOString() });
  expect((await balance(pending.workspace.id)).ledger).toBe('2500.000000');
  expect((await events(pending.workspace.id, 'collection.successful')).map((e) => (e.payload as any).paid_at)).toEqual([
    new Date(expiresAt.getTime() - 6000).toISOString(),
  ]);
  expect(await events(pending.workspace.id, 'collection.expired')).toHaveLength(0);

  // Read (and marked expired) before the notification came: the money arrived in time, so it is credited.
  const readFirst = await oneOff(2500);
  const readExpiry = await expiredAgo(readFirst.row, 4000);
  expect((await read(readFirst.key, readFirst.row.id)).body.data.status).toBe('expired');
  const afterRead = chargeOf(readFirst.row, readFirst.account, new Date(readExpiry.getTime() - 1000));
  expect((await notify(afterRead.rawBody, afterRead.signature)).body.data).toMatchObject({ matched: true, status: 'credited' });
  expect((await read(readFirst.key, readFirst.row.id)).body.data.status).toBe('successful');
  expect((await balance(readFirst.workspace.id)).ledger).toBe('2500.000000');
  expect((await gw.env.db.outboxEvent.findMany({ where: { workspaceId: readFirst.workspace.id }, orderBy: { id: 'asc' } })).map((e) => e.event)).toEqual([
    'collection.expired',
    'collection.successful',
  ]);

  // Paid after expires_at: not credited, as before.
  const tooLate = await oneOff(2500);
  const tooLateExpiry = await expiredAgo(tooLate.row, 4000);
  const paidLate = chargeOf(tooLate.row, tooLate.account, new Date(tooLateExpiry.getTime() + 1000));
  expect((await notify(paidLate.rawBody, paidLate.signature)).body.data).toEqual({
    received: true,
    matched: false,
    duplicate: false,
    status: 'unmatched',
    reason: 'collection_expired',
  });
  expect((await read(tooLate.key, tooLate.row.id)).body.data.status).toBe('expired');
  expect((await balance(tooLate.workspace.id)).ledger).toBe('0.000000');
});

test('an amount a double cannot hold is refused (400), never credited rounded; whole kobo with the signature over the raw bytes still credit', async () => {
  const { workspace, account, row } = await oneOff(2500);
  const exact = paystackChargeSuccess(SECRET, { reference: row.railReference, amountKobo: 250000, accountNumber: account.account_number });
  // The same charge with a fraction of a kobo only the digits show (a double reads 250000), signed as sent.
  const rawBody = exact.rawBody.replace('"amount":250000,', '"amount":250000.0000000000001,');
  expect(rawBody).not.toBe(exact.rawBody);
  const { hmacSha512Hex } = await import('@cowrie/collection-rails');
  const refused = await notify(rawBody, hmacSha512Hex(SECRET, rawBody));
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(/^Unreadable notification: data\.amount/);
  expect(await gw.env.db.inboundPayment.count({ where: { providerReference: row.railReference } })).toBe(0);
  expect((await balance(workspace.id)).ledger).toBe('0.000000');
  // Signed over other bytes than those sent: 401, whatever the parser would make of them.
  expect((await notify(rawBody, exact.signature)).status).toBe(401);
  expect((await notify(exact.rawBody, exact.signature)).body.data).toMatchObject({ matched: true, status: 'credited' });
  expect((await balance(workspace.id)).ledger).toBe('2500.000000');
});

test('a forged, missing or stale-secret signature is 401 and records nothing', async () => {
  const { workspace, account, row } = await oneOff(100);
  const { rawBody, signature } = paystackChargeSuccess(SECRET, { reference: row.railReference, amountKobo: 10000, accountNumber: account.account_number });
  const forged = paystackChargeSuccess('sk_test_someone_else', { reference: row.railReference, amountKobo: 10000, accountNumber: account.account_number });
  for (const [body, sig] of [
    [rawBody, forged.signature],
    [rawBody, undefined],
    [rawBody, ''],
    [rawBody.replace('10000', '99999'), signature],
  ] as const) {
    const res = await notify(body, sig);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  }
  expect(await gw.env.db.inboundPayment.count({ where: { providerReference: row.railReference } })).toBe(0);
  expect((await balance(workspace.id)).ledger).toBe('0.000000');
  expect(gw.env.logLines.some((l) => l.includes('invalid signature refused'))).toBe(true);
});

test('the same notification delivered concurrently credits once', async () => {
  const { workspace, account, row } = await oneOff(200);
  const { rawBody, signature } = paystackChargeSuccess(SECRET, { reference: row.railReference, amountKobo: 20000, accountNumber: account.account_number });
  const results = await Promise.all(Array.from({ length: 6 }, () => notify(rawBody, signature)));
  expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
  expect(results.filter((r) => r.body.data.duplicate === false)).toHaveLength(1);
  expect(results.every((r) => r.body.data.matched === true)).toBe(true);
  expect((await balance(workspace.id)).ledger).toBe('200.000000');
  expect(await events(workspace.id, 'collection.successful')).toHaveLength(1);
});

test('an amount mismatch is recorded as unmatched, not credited, and logged for operators', async () => {
  const { workspace, account, row } = await oneOff(1000);
  const { rawBody, signature } = paystackChargeSuccess(SECRET, {
    reference: 'PSK_short_1',
    amountKobo: 99900,
    accountNumber: account.account_number,
    channel: 'bank_transfer',
  });
  const res = await notify(rawBody, signature);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ matched: false, status: 'unmatched', reason: 'amount_mismatch' });
  const recorded = await gw.env.db.inboundPayment.findUniqueOrThrow({
    where: { provider_providerReference: { provider: 'paystack', providerReference: 'PSK_short_1' } },
  });
  expect(recorded).toMatchObject({
    status: 'unmatched',
    reason: 'amount_mismatch',
    workspaceId: workspace.id,
    collectionId: row.id,
    ledgerTransactionId: null,
  });
  expect(recorded.amount.toFixed(6)).toBe('999.000000');
  expect((await balance(workspace.id)).ledger).toBe('0.000000');
  expect((await gw.env.db.collection.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('pending');
  expect(await events(workspace.id, 'collection.successful')).toHaveLength(0);
  expect(gw.env.logLines.some((l) => l.includes('PSK_short_1') && l.includes('amount_mismatch') && l.includes('"level":40'))).toBe(true);
});

test('a transfer into an unknown account is recorded as unmatched', async () => {
  const { rawBody, signature } = paystackChargeSuccess(SECRET, { reference: 'PSK_unknown_1', amountKobo: 5000, accountNumber: '0123456789' });
  const res = await notify(rawBody, signature);
  expect(res.body.data).toMatchObject({ matched: false, reason: 'unknown_account' });
  const recorded = await gw.env.db.inboundPayment.findUniqueOrThrow({
    where: { provider_providerReference: { provider: 'paystack', providerReference: 'PSK_unknown_1' } },
  });
  expect(recorded).toMatchObject({ status: 'unmatched', reason: 'unknown_account', workspaceId: null });
  expect(await gw.env.db.ledgerTransaction.count({ where: { providerReference: 'PSK_unknown_1' } })).toBe(0);
});

test('a reserved (dedicated) account: opened through Paystack, every transfer into it credits with channel reserved_va', async () => {
  const ws = await createWorkspaceWithKey(gw.env.db, { name: 'Reserved Paystack' });
  const res = await call(gw.url, 'POST', '/v1/deposits', { token: ws.key, body: { channel: 'reserved_va' } });
  expect(res.status).toBe(201);
  expect(res.body.data.account).toMatchObject({ bank: 'Wema Bank', bank_code: '035' });
  const accountNumber = res.body.data.account.account_number;
  for (const [ref, kobo] of [
    ['PSK_dva_1', 100000],
    ['PSK_dva_2', 25050],
  ] as const) {
    const n = paystackChargeSuccess(SECRET, { reference: ref, amountKobo: kobo, accountNumber });
    expect((await notify(n.rawBody, n.signature)).body.data).toMatchObject({ matched: true, status: 'credited' });
  }
  expect((await balance(ws.workspace.id)).available).toBe('1250.500000');
  const credits = await gw.env.db.ledgerTransaction.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { id: 'asc' } });
  expect(credits.map((c) => c.channel)).toEqual(['reserved_va', 'reserved_va']);
  const evts = await events(ws.workspace.id, 'collection.successful');
  expect(evts.map((e) => (e.payload as any).provider_reference)).toEqual(['PSK_dva_1', 'PSK_dva_2']);
  expect(evts[0]!.payload).toMatchObject({
    reference: 'business_ngn',
    account_number: accountNumber,
    amount: '1000.000000',
    currency: 'NGN',
    channel: 'reserved_va',
  });
});

test('events Cowrie does not use are acknowledged and ignored', async () => {
  const raw = JSON.stringify({ event: 'transfer.success', data: { reference: 'x' } });
  const { hmacSha512Hex } = await import('@cowrie/collection-rails');
  const res = await notify(raw, hmacSha512Hex(SECRET, raw));
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ received: true, ignored: 'transfer.success' });
});

test('Paystack failing while opening is 503 provider_error and writes nothing', async () => {
  const ws = await createWorkspaceWithKey(gw.env.db, { name: 'Outage Co' });
  for (const mode of ['error_500', 'slow'] as const) {
    standIn.options.mode = mode;
    for (const body of [{ channel: 'collection_va', amount: 10 }, { channel: 'reserved_va' }]) {
      const res = await call(gw.url, 'POST', '/v1/deposits', { token: ws.key, body });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('provider_error');
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
    }
  }
  expect(await gw.env.db.collection.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  expect(await gw.env.db.reservedAccount.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  expect(gw.env.logLines.some((l) => l.includes(SECRET))).toBe(false);
});

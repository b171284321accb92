// Risk: an amount silently rounded on its way in. JSON numbers are doubles to
// JSON.parse, so 999999999999999.999999 arrived as 1e15 and was paid. Every
// amount is now read from the client's digits: held exactly, or refused as a
// 400 naming the field; no other numeric field takes a rounded value.
import { Decimal } from '@cowrie/core';
import { auditLedger } from '@cowrie/ledger';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let key: string;
let workspaceId: number;
beforeAll(async () => {
  stack = await startPayoutStack({ PAYOUT_FEE_SCHEDULE: JSON.stringify({ NGN: { flat: '0.000001', percent: '0.5' } }) });
  const ws = await createWorkspaceWithKey(stack.env.db);
  key = ws.key;
  workspaceId = ws.workspace.id;
  await fund(stack.env.db, workspaceId, 'NGN', '2000000000000');
});
afterAll(() => stack.close());

/** POSTs a body given as raw JSON text, so numbers arrive with exactly these digits. */
const raw = (path: string, text: string) => call(stack.url, 'POST', path, { token: key, rawBody: text });
const transferWith = (amount: string) => raw('/v1/transfers', `{"currency":"NGN","amount":${amount},"account_number":"0123456789","bank_code":"058"}`);

test.each([
  ['999999999999999.999999', /amount must be at most 1000000000000$/],
  ['1.0000000000000001', /amount must have at most 6 decimal places$/],
  ['1000000000000.0000001', /amount must (be at most|have at most 6 decimal)/],
  ['1e400', /amount must be at most/],
])('a transfer amount of %s (as a JSON number) is refused, naming amount, and nothing is written', async (amount, message) => {
  const before = await stack.env.db.ledgerTransaction.count({ where: { workspaceId, type: 'debit' } });
  const res = await transferWith(amount);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message), details: { field: 'amount' } });
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId, type: 'debit' } })).toBe(before);
});

test('a numeric-string amount with 7 decimals is refused naming amount, as before', async () => {
  const res = await transferWith('"1.0000001"');
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({
    code: 'invalid_request',
    message: expect.stringMatching(/amount must have at most 6 decimal places$/),
    details: { field: 'amount' },
  });
});

test('the largest amount with six decimals is held, paid and rendered exactly, fees included', async () => {
  const res = await transferWith('999999999999.999999');
  expect(res.status).toBe(201);
  const fee = new Decimal('999999999999.999999').times('0.005').plus('0.000001').toDecimalPlaces(6, Decimal.ROUND_HALF_UP);
  expect(res.body.data).toMatchObject({ amount: '999999999999.999999', fees: fee.toFixed(6), status: 'completed' });
  const row = await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: res.body.data.id } });
  expect(row.amount.toFixed(6)).toBe('999999999999.999999');
  const hold = await stack.env.db.ledgerEntry.findFirstOrThrow({ where: { transactionId: row.id, kind: 'hold' } });
  expect(hold.heldDelta.toFixed(6)).toBe(new Decimal('999999999999.999999').plus(fee).toFixed(6));
  // Funded 2e12: what is left is exact to the last micro-unit.
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  const ngn = balances.body.data.find((b: { currency: string }) => b.currency === 'NGN');
  expect(ngn).toMatchObject({ ledger: new Decimal('2000000000000').minus('999999999999.999999').minus(fee).toFixed(6), pending: '0.000000' });
});

test('a collection_va deposit amount a double cannot hold is refused naming amount', async () => {
  const res = await raw('/v1/deposits', '{"channel":"collection_va","amount":2500.0000000000001}');
  expect(res.status).toBe(400);
  expect(res.body.error.details.field).toBe('amount');
});

test('a collection_va deposit of the largest amount, as a JSON number, is opened for exactly that amount', async () => {
  const res = await raw('/v1/deposits', '{"channel":"collection_va","amount":999999999999.999999,"reference":"exact-max"}');
  expect(res.status).toBe(201);
  const row = await stack.env.db.collection.findFirstOrThrow({ where: { workspaceId, accountNumber: res.body.data.account.account_number } });
  expect(row.amount.toFixed(6)).toBe('999999999999.999999');
});

test('any other numeric field given a number a double cannot hold is a 400 naming it, never a rounded id', async () => {
  const res = await raw('/v1/withdrawals', '{"currency":"NGN","amount":5,"beneficiary_id":12345678901234567890}');
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'beneficiary_id' } });
});

test('ordinary numbers, and long digit runs inside strings, parse as before', async () => {
  const res = await raw(
    '/v1/transfers',
    '{"currency":"NGN","amount":250.5,"account_number":"0123456789","bank_code":"058","narration":"invoice 12345678901234567890"}',
  );
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject({ amount: '250.500000', description: 'invoice 12345678901234567890' });
});

test('the ledger audits clean after the largest amounts', async () => {
  expect((await auditLedger(stack.env.db)).violations).toEqual([]);
});

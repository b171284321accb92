// Risk: the dashboard's payout routes answering by other rules than /v1 (a
// second copy of the money path that drifts), sending money twice on a retried
// click, or reaching another workspace's beneficiaries.
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack();
});
afterAll(async () => {
  await stack?.close();
});

const transferBody = { currency: 'NGN', amount: '12.34', account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' };

test('a transfer from a session is the /v1 transfer of its workspace: the pre-flight errors, the same answer, once per Idempotency-Key', async () => {
  const a = await signInNewWorkspace(stack, 'Payouts A');
  // Pre-flight, before any money: the same refusal as /v1 (no funds yet).
  const session = await call(stack.url, 'POST', '/transfers', { token: a.token, body: transferBody, headers: { 'Idempotency-Key': 'dash-1' } });
  const v1 = await call(stack.url, 'POST', '/v1/transfers', { token: a.apiKey, body: transferBody, headers: { 'Idempotency-Key': 'v1-1' } });
  expect(session.status).toBe(400);
  expect(session.body.error).toEqual({ ...v1.body.error, request_id: session.body.error.request_id });
  expect(session.body.error.message).toMatch(/^Exceeds balance: 0\.000000 NGN/);

  // A payout from the dashboard must carry an Idempotency-Key.
  await fund(stack.env.db, a.workspaceId, 'NGN', '100');
  const keyless = await call(stack.url, 'POST', '/transfers', { token: a.token, body: transferBody });
  expect(keyless.status).toBe(400);
  expect(keyless.body.error.details).toMatchObject({ field: 'Idempotency-Key' });

  const headers = { 'Idempotency-Key': 'dash-2' };
  const sent = await call(stack.url, 'POST', '/transfers', { token: a.token, body: transferBody, headers });
  expect(sent.status).toBe(201);
  expect(sent.body.data).toMatchObject({ status: 'completed', amount: '12.340000', counterpartyName: 'Ada Obi' });
  // The retried click is answered with the same transfer; the money moved once.
  const again = await call(stack.url, 'POST', '/transfers', { token: a.token, body: transferBody, headers });
  expect(again.status).toBe(201);
  expect(again.body.data.reference).toBe(sent.body.data.reference);
  const balances = (await call(stack.url, 'GET', '/balances', { token: a.token })).body.data;
  expect(balances.find((b: { currency: string }) => b.currency === 'NGN').available).toBe('87.660000');
  // The API key's list sees the dashboard's transfer: one ledger.
  const listed = (await call(stack.url, 'GET', '/v1/transactions?type=debit', { token: a.apiKey })).body.data;
  expect(listed.map((t: { reference: string }) => t.reference)).toEqual([sent.body.data.reference]);

  // Bank list and account resolution answer as /v1 does.
  const banks = await call(stack.url, 'GET', '/banks', { token: a.token });
  expect(banks.body.data).toEqual((await call(stack.url, 'GET', '/v1/banks', { token: a.apiKey })).body.data);
  const resolved = await call(stack.url, 'POST', '/banks/resolve', { token: a.token, body: { account_number: '0123456789', bank_code: '058' } });
  expect(resolved.status).toBe(200);
  expect(resolved.body.data).toEqual(
    (await call(stack.url, 'POST', '/v1/banks/resolve', { token: a.apiKey, body: { account_number: '0123456789', bank_code: '058' } })).body.data,
  );
  const unknownBank = await call(stack.url, 'POST', '/banks/resolve', { token: a.token, body: { account_number: '0123456789', bank_code: '999999' } });
  expect(unknownBank.status).toBe(400);
});

test("beneficiaries: workspace A adds, lists, sends a withdrawal to and removes its own; B never reaches A's", async () => {
  const a = await signInNewWorkspace(stack, 'Beneficiaries A');
  const b = await signInNewWorkspace(stack, 'Beneficiaries B');
  await fund(stack.env.db, a.workspaceId, 'NGN', '50');
  const added = await call(stack.url, 'POST', '/beneficiaries', { token: a.token, body: { account_number: '0123456789', bank_code: '058', currency: 'NGN' } });
  expect(added.status).toBe(201);
  const id = added.body.data.id as number;
  expect((await call(stack.url, 'GET', '/beneficiaries', { token: a.token })).body.data.map((x: { id: number }) => x.id)).toEqual([id]);
  // The same list as A's API key reads.
  expect((await call(stack.url, 'GET', '/v1/beneficiaries', { token: a.apiKey })).body.data).toEqual(
    (await call(stack.url, 'GET', '/beneficiaries', { token: a.token })).body.data,
  );

  // B sees none of A's, cannot pay out to it, cannot remove it.
  expect((await call(stack.url, 'GET', '/beneficiaries', { token: b.token })).body.data).toEqual([]);
  await fund(stack.env.db, b.workspaceId, 'NGN', '50');
  const stolen = await call(stack.url, 'POST', '/withdrawals', {
    token: b.token,
    body: { currency: 'NGN', amount: '1', beneficiary_id: id },
    headers: { 'Idempotency-Key': 'b-1' },
  });
  expect(stolen.status).toBe(404);
  expect(stolen.body.error.message).toBe('Beneficiary not found');
  expect((await call(stack.url, 'DELETE', `/beneficiaries/${id}`, { token: b.token })).status).toBe(404);
  // Nor in test mode of A (another side).
  expect((await call(stack.url, 'GET', '/beneficiaries', { token: a.token, headers: { 'Cowrie-Mode': 'test' } })).body.data).toEqual([]);

  const paid = await call(stack.url, 'POST', '/withdrawals', {
    token: a.token,
    body: { currency: 'NGN', amount: '5.5', beneficiary_id: id },
    headers: { 'Idempotency-Key': 'a-1' },
  });
  expect(paid.status).toBe(201);
  expect(paid.body.data).toMatchObject({ status: 'completed', amount: '5.500000' });

  const removed = await call(stack.url, 'DELETE', `/beneficiaries/${id}`, { token: a.token });
  expect(removed.status).toBe(200);
  expect(removed.body.data).toEqual({ id, deleted: true });
  expect((await call(stack.url, 'DELETE', `/beneficiaries/${id}`, { token: a.token })).status).toBe(404);
  expect((await call(stack.url, 'DELETE', '/beneficiaries/abc', { token: a.token })).status).toBe(404);
  expect((await call(stack.url, 'GET', '/beneficiaries', { token: a.token })).body.data[0]).toMatchObject({ id, active: false });
  const afterRemoval = await call(stack.url, 'POST', '/withdrawals', {
    token: a.token,
    body: { currency: 'NGN', amount: '1', beneficiary_id: id },
    headers: { 'Idempotency-Key': 'a-2' },
  });
  expect(afterRemoval.status).toBe(404);
});

test('the payout routes need a session: an API key or no token is 401', async () => {
  const a = await signInNewWorkspace(stack, 'Payouts C');
  expect((await call(stack.url, 'GET', '/beneficiaries', { token: a.apiKey })).status).toBe(401);
  expect((await call(stack.url, 'POST', '/transfers', { body: transferBody, headers: { 'Idempotency-Key': 'x' } })).status).toBe(401);
});

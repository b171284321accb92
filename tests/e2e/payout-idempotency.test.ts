// Risk: one Idempotency-Key paying twice when the idempotency layer's own
// record fails (its store, a stale claim of a dead process), a client's
// ledger key blocking a system credit, and a deep body sent with a key
// reaching a 500. Real gateway, worker, Postgres and Redis; the failures are
// made in Postgres itself (a trigger that refuses the store).
import { Decimal } from '@cowrie/core';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { aDayLater, fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ IDEMPOTENCY_WAIT_MS: '300' });
});
afterAll(() => stack.close());

const transfer = (key: string, body: Record<string, unknown>, idempotencyKey: string) =>
  call(stack.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', account_number: '0123456789', bank_code: '058', ...body },
    headers: { 'Idempotency-Key': idempotencyKey },
  });

/** Makes Postgres refuse to store a completed idempotent response, as a failing database would. */
async function refuseStoringResponses() {
  await stack.env.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_idempotent_store() RETURNS trigger AS $$
    BEGIN RAISE EXCEPTION 'store refused by the test'; END $$ LANGUAGE plpgsql`);
  await stack.env.db.$executeRawUnsafe(`
    CREATE TRIGGER refuse_idempotent_store BEFORE UPDATE ON "IdempotencyRecord"
    FOR EACH ROW WHEN (NEW."state" = 'completed') EXECUTE FUNCTION refuse_idempotent_store()`);
  return () => stack.env.db.$executeRawUnsafe('DROP TRIGGER refuse_idempotent_store ON "IdempotencyRecord"');
}

/** A withdrawal of 15 to a new beneficiary on `accountNumber`, sent twice under one Idempotency-Key: both answers. */
async function withdrawTwice(key: string, accountNumber: string, idempotencyKey: string) {
  const beneficiary = await call(stack.url, 'POST', '/v1/beneficiaries', {
    token: key,
    body: { name: `Account ${accountNumber}`, account_number: accountNumber, bank_code: '058', currency: 'NGN' },
  });
  const withdraw = () =>
    call(stack.url, 'POST', '/v1/withdrawals', {
      token: key,
      body: { currency: 'NGN', amount: 15, beneficiary_id: beneficiary.body.data.id },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
  return [await withdraw(), await withdraw()] as const;
}

const debits = (workspaceId: number) => stack.env.db.ledgerTransaction.count({ where: { workspaceId, type: 'debit' } });

test('a success whose response could not be stored keeps its claim: retries never pay a second time', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const allowStoring = await refuseStoringResponses();
  let first;
  try {
    first = await transfer(key, { amount: 40 }, 'pay-once-1');
  } finally {
    await allowStoring();
  }
  expect(first.status).toBe(201);
  expect(stack.env.logLines.some((l) => l.includes('could not store the idempotent response'))).toBe(true);

  // The claim is kept: a retry is still "in progress", never run again.
  const retry = await transfer(key, { amount: 40 }, 'pay-once-1');
  expect(retry.status).toBe(409);
  expect(retry.body.error.message).toMatch(/still in progress/);
  expect(await debits(workspace.id)).toBe(1);

  // The claim goes stale (as a dead process's would) and is taken over: the ledger row's key answers with the first payout.
  await stack.env.db.idempotencyRecord.updateMany({
    where: { workspaceId: workspace.id, key: 'pay-once-1' },
    data: { createdAt: new Date(Date.now() - 3_600_000) },
  });
  const takeover = await transfer(key, { amount: 40 }, 'pay-once-1');
  expect(takeover.status).toBe(201);
  expect(takeover.body.data.id).toBe(first.body.data.id);
  expect(await debits(workspace.id)).toBe(1);
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN').available).toBe('60.000000');
});

test('with the idempotency record gone, the same header key with another body is 409 and pays nothing', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, { amount: 10 }, 'pay-once-2');
  expect(first.status).toBe(201);
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: workspace.id } });

  const other = await transfer(key, { amount: 11 }, 'pay-once-2');
  expect(other.status).toBe(409);
  expect(other.body.error).toMatchObject({ code: 'idempotency_conflict' });
  expect(other.body.error.message).toMatch(/different request body/);
  const same = await transfer(key, { amount: 10 }, 'pay-once-2');
  expect(same.status).toBe(201);
  expect(same.body.data.id).toBe(first.body.data.id);
  expect(await debits(workspace.id)).toBe(1);

  // A withdrawal is another request: the same key on it is a conflict too.
  const beneficiary = await call(stack.url, 'POST', '/v1/beneficiaries', {
    token: key,
    body: { account_number: '0123456780', bank_code: '058', currency: 'NGN' },
  });
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: workspace.id } });
  const withdrawal = await call(stack.url, 'POST', '/v1/withdrawals', {
    token: key,
    body: { currency: 'NGN', amount: 10, beneficiary_id: beneficiary.body.data.id },
    headers: { 'Idempotency-Key': 'pay-once-2' },
  });
  expect(withdrawal.status).toBe(409);
  expect(await debits(workspace.id)).toBe(1);
});

test('a header key is answered with its payout even when the balance is gone since', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '50');
  const first = await transfer(key, { amount: 50 }, 'drain-1');
  expect(first.status).toBe(201);
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: workspace.id } });
  const again = await transfer(key, { amount: 50 }, 'drain-1');
  expect(again.status).toBe(201);
  expect(again.body.data.id).toBe(first.body.data.id);
});

test('a client ledger key shaped like a system key never blocks the inbound credit it resembles', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const deposit = await call(stack.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'reserved_va' } });
  expect(deposit.status).toBe(201);
  const accountNumber = deposit.body.data.account.account_number;
  const provider = stack.env.config.COLLECTION_RAIL;
  const sent = await call(stack.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', amount: 5, account_number: '0123456789', bank_code: '058', idempotency_key: `inbound:${provider}:REF-42` },
  });
  expect(sent.status).toBe(201);

  const outcome = await receiveInboundTransfer(
    { db: stack.env.db },
    { provider, providerReference: 'REF-42', accountNumber, amount: new Decimal('25'), currency: 'NGN', raw: {} },
  );
  expect(outcome).toMatchObject({ matched: true, status: 'credited' });
  const credit = await stack.env.db.ledgerTransaction.findFirstOrThrow({ where: { workspaceId: workspace.id, type: 'credit', channel: 'reserved_va' } });
  expect(credit.amount.toFixed(6)).toBe('25.000000');
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN').ledger).toBe('120.000000');
});

test('a deeply nested body sent with an Idempotency-Key is 400 naming the field, like the same body without one', async () => {
  const { key } = await createWorkspaceWithKey(stack.env.db);
  // 20,000 levels in 40 kB: within the body limit, far past any stack's patience.
  const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const raw = `{"currency":"NGN","amount":5,"account_number":"0123456789","extra":${nested}}`;
  const headers = { 'content-type': 'application/json' };
  const withKey = await call(stack.url, 'POST', '/v1/transfers', { token: key, rawBody: raw, headers: { ...headers, 'Idempotency-Key': 'deep-1' } });
  const withoutKey = await call(stack.url, 'POST', '/v1/transfers', { token: key, rawBody: raw, headers });
  expect(withoutKey.status).toBe(400);
  expect(withKey.status).toBe(400);
  expect(withKey.body.error).toEqual(withoutKey.body.error);
  expect(withKey.body.error.details.field).toMatch(/^extra\.0\.0/);
});

test('a retry after the rail threw before accepting runs again: a new row and reference, the rail called again, its own answer (transfers and withdrawals)', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, { amount: 40, account_number: '0000000002' }, 'retry-after-502');
  expect(first.status).toBe(502);
  expect(first.body.error.details.transaction).toMatchObject({ status: 'failed' });
  const retry = await transfer(key, { amount: 40, account_number: '0000000002' }, 'retry-after-502');
  expect(retry.status).toBe(502);
  expect(retry.body.error.details.transaction.id).not.toBe(first.body.error.details.transaction.id);
  expect(retry.body.error.details.transaction.reference).not.toBe(first.body.error.details.transaction.reference);
  const rows = await stack.env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, requestKey: 'retry-after-502' } });
  expect(rows.map((r) => r.status)).toEqual(['failed', 'failed']);
  // Each attempt reached the rail: each has its own dispatch, taken up once.
  const dispatches = await stack.env.db.payoutDispatch.findMany({ where: { transactionId: { in: rows.map((r) => r.id) } } });
  expect(dispatches.map((d) => d.attempts)).toEqual([1, 1]);

  // A withdrawal to a beneficiary whose rail throws: the same.
  const [w1, w2] = await withdrawTwice(key, '0000000002', 'withdraw-after-502');
  expect([w1.status, w2.status]).toEqual([502, 502]);
  expect(w2.body.error.details.transaction.reference).not.toBe(w1.body.error.details.transaction.reference);
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN')).toMatchObject({ available: '100.000000', pending: '0.000000' });
});

test('a retry of a completed payout is its replay, even with the idempotency record gone: nothing is sent again', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, { amount: 10 }, 'completed-once');
  expect(first.body.data.status).toBe('completed');
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: workspace.id } });
  const again = await transfer(key, { amount: 10 }, 'completed-once');
  expect(again.status).toBe(201);
  expect(again.body.data.id).toBe(first.body.data.id);
  expect(await debits(workspace.id)).toBe(1);
});

// A retry with the same Idempotency-Key after a definite failure runs a new
// attempt (only successful responses are stored). A rail that
// answers "failed" is one: its 201 names a failed payout, which is no success
// to replay.
test('a retry after the rail answered failed runs again: a new row and reference, the rail called again (transfers and withdrawals)', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, { amount: 40, account_number: '0000000001' }, 'retry-after-failed');
  expect(first.status).toBe(201);
  expect(first.body.data.status).toBe('failed');
  const retry = await transfer(key, { amount: 40, account_number: '0000000001' }, 'retry-after-failed');
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.body.data).toMatchObject({ status: 'failed' });
  expect(retry.body.data.id).not.toBe(first.body.data.id);
  expect(retry.body.data.reference).not.toBe(first.body.data.reference);
  const rows = await stack.env.db.ledgerTransaction.findMany({
    where: { workspaceId: workspace.id, requestKey: 'retry-after-failed' },
    orderBy: { id: 'asc' },
  });
  expect(rows.map((r) => r.status)).toEqual(['failed', 'failed']);
  const dispatches = await stack.env.db.payoutDispatch.findMany({ where: { transactionId: { in: rows.map((r) => r.id) } } });
  expect(dispatches.map((d) => d.attempts)).toEqual([1, 1]);

  // The key is free after the failure: the corrected request runs under it, and is then the key's answer.
  const corrected = await transfer(key, { amount: 40 }, 'retry-after-failed');
  expect(corrected.status).toBe(201);
  expect(corrected.body.data.status).toBe('completed');
  const replay = await transfer(key, { amount: 40 }, 'retry-after-failed');
  expect(replay.body.data.id).toBe(corrected.body.data.id);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const mismatch = await transfer(key, { amount: 41 }, 'retry-after-failed');
  expect(mismatch.status).toBe(409);

  const [w1, w2] = await withdrawTwice(key, '0000000001', 'withdraw-after-failed');
  expect([w1.status, w2.status]).toEqual([201, 201]);
  expect([w1.body.data.status, w2.body.data.status]).toEqual(['failed', 'failed']);
  expect(w2.body.data.reference).not.toBe(w1.body.data.reference);
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN')).toMatchObject({ available: '60.000000', pending: '0.000000' });
});

// After 24 hours the key's record is expired and deleted, and the request runs fresh.
test('after 24 hours a header key runs fresh: the same request pays again, another body is no conflict; a body idempotency_key still answers its payout', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const first = await transfer(key, { amount: 10 }, 'monthly-rent');
  expect(first.body.data.status).toBe('completed');
  await aDayLater(stack.env.db, workspace.id, 'monthly-rent');
  const nextDay = await transfer(key, { amount: 10 }, 'monthly-rent');
  expect(nextDay.status).toBe(201);
  expect(nextDay.body.data.status).toBe('completed');
  expect(nextDay.body.data.id).not.toBe(first.body.data.id);
  // Within the day the key answers its new payout.
  expect((await transfer(key, { amount: 10 }, 'monthly-rent')).body.data.id).toBe(nextDay.body.data.id);
  await aDayLater(stack.env.db, workspace.id, 'monthly-rent');
  const otherBody = await transfer(key, { amount: 12 }, 'monthly-rent');
  expect(otherBody.status).toBe(201);
  expect(otherBody.body.data.id).not.toBe(nextDay.body.data.id);
  expect(await debits(workspace.id)).toBe(3);

  // The body's idempotency_key is the ledger's own, with no retention: a day later it still answers its payout.
  const once = await transfer(key, { amount: 5, idempotency_key: 'invoice-9' }, 'invoice-9-try');
  await aDayLater(stack.env.db, workspace.id, 'invoice-9-try');
  const later = await transfer(key, { amount: 5, idempotency_key: 'invoice-9' }, 'invoice-9-try');
  expect(later.body.data.id).toBe(once.body.data.id);
  expect(await debits(workspace.id)).toBe(4);
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN')).toMatchObject({ available: '63.000000', pending: '0.000000' });
});

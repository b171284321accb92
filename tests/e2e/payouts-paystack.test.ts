// Risk: a real rail's ambiguity handled wrongly: a timed-out transfer sent
// twice or marked failed while money may have moved, a 5xx hidden, a pending
// transfer never settled. Gateway, queue, worker and its reconciler against a
// local Paystack stand-in. An outcome the rail cannot confirm stays unknown:
// the API answers the provider error, the row stays processing with its hold,
// and only the rail's answer (or a grace window of "not found") settles it.
import { Decimal } from '@cowrie/core';
import { findWallet } from '@cowrie/ledger';
import { createTransfer, executePayout } from '@cowrie/payouts';
import { createModeRails } from '@cowrie/rails';
import { createWorkspaceWithKey, listenGateway, waitFor } from '@cowrie/testing';
import { paystackTransferEvent, startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { closeGatewayDeps, createApp, createGatewayDeps, type GatewayDeps } from '@cowrie/gateway';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let standIn: PaystackStandIn;
let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let key: string;
let workspaceId: number;

const transfer = (account: string, amount = 100, token = key) =>
  call(stack.url, 'POST', '/v1/transfers', { token, body: { currency: 'NGN', amount, account_number: account, bank_code: '058', account_name: 'Ada Obi' } });
const posts = (reference: string) => standIn.requests.filter((r) => r.method === 'POST' && r.path === '/transfer' && r.body?.reference === reference).length;
const held = async (id = workspaceId) => (await findWallet(stack.env.db, id, 'NGN'))!.held.toFixed(6);
/** A workspace of its own, so holds awaiting the rail in other tests do not show in its figures. */
async function ownWorkspace() {
  const ws = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, ws.workspace.id, 'NGN', '1000');
  return { key: ws.key, id: ws.workspace.id };
}
const statusOf = async (id: number) => (await stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id } })).status;

beforeAll(async () => {
  standIn = await startPaystackStandIn();
  stack = await startPayoutStack({
    PAYOUT_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: standIn.secret,
    PAYSTACK_BASE_URL: standIn.url,
    PAYSTACK_TIMEOUT_MS: '300',
    PAYOUT_SYNC_WAIT_MS: '1500',
    PAYOUT_RECONCILE_EVERY_MS: '300',
    PAYOUT_RECONCILE_AFTER_MS: '500',
    PAYOUT_UNKNOWN_FIRST_CHECK_MS: '200',
    PAYOUT_UNKNOWN_MAX_CHECK_MS: '400',
    PAYOUT_UNKNOWN_GRACE_MS: '2500',
  });
  const ws = await createWorkspaceWithKey(stack.env.db);
  key = ws.key;
  workspaceId = ws.workspace.id;
  await fund(stack.env.db, workspaceId, 'NGN', '100000');
});
afterAll(async () => {
  await stack.close();
  await standIn.close();
});

test('banks and resolve come from Paystack; the bank list is cached', async () => {
  const banks = await call(stack.url, 'GET', '/v1/banks', { token: key });
  expect(banks.status).toBe(200);
  expect(banks.body.data).toEqual([
    { bankCode: '044', bankName: 'Access Bank' },
    { bankCode: '058', bankName: 'Guaranty Trust Bank' },
    { bankCode: '057', bankName: 'Zenith Bank' },
  ]);
  const bankCalls = standIn.count('GET', '/bank');
  expect((await call(stack.url, 'GET', '/v1/banks', { token: key })).body.data).toEqual(banks.body.data);
  expect(standIn.count('GET', '/bank')).toBe(bankCalls);

  const resolved = await call(stack.url, 'POST', '/v1/banks/resolve', { token: key, body: { account_number: '0123456789', bank_code: '058' } });
  expect(resolved.body.data).toEqual({ accountName: 'PAYSTACK NAME 6789', accountNumber: '0123456789', bankCode: '058', bankName: 'Guaranty Trust Bank' });
  const refused = await call(stack.url, 'POST', '/v1/banks/resolve', { token: key, body: { account_number: '9999999999', bank_code: '058' } });
  expect(refused.status).toBe(400);
  expect(refused.body.error.details.field).toBe('account_number');
});

test('a transfer completes through Paystack: kobo amount, our reference, Paystack transfer code', async () => {
  const res = await transfer('0123456789', 2500.5);
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject({
    status: 'completed',
    provider: 'paystack',
    providerReference: expect.stringMatching(/^TRF_/),
    counterpartyBank: 'Guaranty Trust Bank',
  });
  expect(res.body.data.metadata).toMatchObject({
    provider: 'paystack',
    raw: { status: true, data: { status: 'success', reference: res.body.data.reference } },
  });
  const sent = standIn.requests.find((r) => r.path === '/transfer' && r.body?.reference === res.body.data.reference)!;
  expect(sent.body).toMatchObject({ amount: 250050, currency: 'NGN', source: 'balance', reason: 'Cowrie transfer' });
});

test('Paystack reports a failure → 201 failed, hold released', async () => {
  const before = await held();
  const res = await transfer('0000000006');
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('failed');
  expect(await held()).toBe(before);
});

/** The API's provider error for a payout whose outcome is being confirmed. */
function expectOutcomeUnknown(res: Awaited<ReturnType<typeof transfer>>, status: number) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe('provider_error');
  const row = res.body.error.details.transaction;
  expect(row.status).toBe('processing');
  expect(res.body.error.details).toMatchObject({ outcome: 'unknown', reference: row.reference, message: expect.stringMatching(/not confirmed/) });
  return row as { id: number; reference: string };
}

test('a Paystack 5xx is ambiguous: 502 provider_error, processing with the hold kept, never resent; failed only after the grace window of "not found"', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0000000009', 100, ws.key);
  const row = expectOutcomeUnknown(res, 502);
  expect(await held(ws.id)).toBe('100.000000');
  await waitFor(async () => standIn.count('GET', `/transfer/verify/${row.reference}`) >= 3, 10_000);
  expect(await statusOf(row.id)).toBe('processing');
  await waitFor(async () => (await statusOf(row.id)) === 'failed', 15_000);
  expect(posts(row.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.failed' } })).toBe(1);
});

test('a 5xx after Paystack took the transfer, which shows up only later: settled completed once it appears, sent once', async () => {
  const ws = await ownWorkspace();
  standIn.options.acceptThenFail = true;
  standIn.options.hideFromVerify = true;
  const res = await transfer('0123456789', 40, ws.key);
  standIn.options.acceptThenFail = false;
  const row = expectOutcomeUnknown(res, 502);
  await waitFor(async () => standIn.count('GET', `/transfer/verify/${row.reference}`) >= 2, 10_000);
  expect(await statusOf(row.id)).toBe('processing');
  standIn.options.hideFromVerify = false;
  await waitFor(async () => (await statusOf(row.id)) === 'completed', 10_000);
  expect(posts(row.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('960.000000');
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.completed' } })).toBe(1);
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.failed' } })).toBe(0);
});

test('a timeout after Paystack took the transfer → re-queried, completed, sent once', async () => {
  const res = await transfer('0000000008');
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('completed');
  expect(posts(res.body.data.reference)).toBe(1);
});

test('a timeout Paystack never recorded → 504 provider_error, processing with its hold; failed after the grace window', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0000000005', 100, ws.key);
  const row = expectOutcomeUnknown(res, 504);
  expect(await held(ws.id)).toBe('100.000000');
  await waitFor(async () => (await statusOf(row.id)) === 'failed', 15_000);
  expect(posts(row.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
});

test('a timeout while verify is down too: 504 provider_error, the hold kept, settled once Paystack answers', async () => {
  const ws = await ownWorkspace();
  standIn.options.verifyDown = true;
  const res = await transfer('0000000008', 7, ws.key);
  const row = expectOutcomeUnknown(res, 504);
  expect(await held(ws.id)).toBe('7.000000');
  standIn.options.verifyDown = false;
  await waitFor(async () => (await statusOf(row.id)) === 'completed', 15_000);
  expect(posts(row.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
});

const transferWithKey = (account: string, idempotencyKey: string, token: string, amount = 25) =>
  call(stack.url, 'POST', '/v1/transfers', {
    token,
    body: { currency: 'NGN', amount, account_number: account, bank_code: '058', account_name: 'Ada Obi' },
    headers: { 'Idempotency-Key': idempotencyKey },
  });

test('Paystack down before it accepted anything: 502 with the failed row; the retry with the same Idempotency-Key runs again and completes', async () => {
  const ws = await ownWorkspace();
  standIn.options.mode = 'error_500';
  let first;
  try {
    first = await transferWithKey('0123456789', 'paystack-retry-1', ws.key);
  } finally {
    standIn.options.mode = 'ok';
  }
  expect(first.status).toBe(502);
  const failed = first.body.error.details.transaction;
  expect(failed.status).toBe('failed');
  expect(posts(failed.reference)).toBe(0);
  const retry = await transferWithKey('0123456789', 'paystack-retry-1', ws.key);
  expect(retry.status).toBe(201);
  expect(retry.body.data).toMatchObject({ status: 'completed' });
  expect(retry.body.data.reference).not.toBe(failed.reference);
  expect(posts(retry.body.data.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('975.000000');
});

test('a retry of a payout whose outcome is unknown answers that payout and sends nothing again', async () => {
  const ws = await ownWorkspace();
  const first = await transferWithKey('0000000009', 'paystack-unknown-1', ws.key);
  const row = expectOutcomeUnknown(first, 502);
  const retry = await transferWithKey('0000000009', 'paystack-unknown-1', ws.key);
  expect(retry.body.error.details.transaction.id).toBe(row.id);
  expect(posts(row.reference)).toBe(1);
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws.id, type: 'debit' } })).toBe(1);
});

test('a pending transfer stays processing and the reconciler settles it when Paystack completes it', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0000000007', 3, ws.key);
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('processing');
  expect(await held(ws.id)).toBe('3.000000');
  // Asked on the schedule, not settled while Paystack says pending, even past the grace window.
  await waitFor(async () => standIn.count('GET', `/transfer/verify/${res.body.data.reference}`) >= 2, 10_000);
  expect(await statusOf(res.body.data.id)).toBe('processing');
  standIn.complete(res.body.data.reference);
  await waitFor(async () => (await statusOf(res.body.data.id)) === 'completed', 10_000);
  expect(posts(res.body.data.reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
});

const notify = (event: string, reference: string, secret = standIn.secret) => {
  const { rawBody, signature } = paystackTransferEvent(secret, event, standIn.transfers.get(reference) ?? { reference, status: 'reversed' });
  return call(stack.url, 'POST', '/rails/paystack/notifications', {
    rawBody,
    headers: { 'x-paystack-signature': signature, 'content-type': 'application/json' },
  });
};

test('a transfer Paystack acknowledged (pending) that verify stops finding keeps its hold past the grace window, and settles when it shows again', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0000000007', 6, ws.key);
  expect(res.body.data.status).toBe('processing');
  const { id, reference } = res.body.data;
  await waitFor(async () => standIn.count('GET', `/transfer/verify/${reference}`) >= 1, 10_000);
  const askedBefore = standIn.count('GET', `/transfer/verify/${reference}`);
  standIn.options.hideFromVerify = true;
  try {
    // "Not found" for longer than the grace window (2.5 s), asked again and again: it proves nothing about a transfer Paystack took.
    const hiddenFrom = Date.now();
    await waitFor(async () => Date.now() - hiddenFrom > 4000 && standIn.count('GET', `/transfer/verify/${reference}`) >= askedBefore + 4, 15_000);
    expect(await statusOf(id)).toBe('processing');
    expect(await held(ws.id)).toBe('6.000000');
    // Each such check is counted for the operator's alert (a changed rail key or URL would do this to every payout).
    expect((await stack.workerMetrics.payoutsLostByRail.get()).values.find((v) => v.labels.rail === 'paystack')?.value).toBeGreaterThanOrEqual(1);
  } finally {
    standIn.options.hideFromVerify = false;
  }
  standIn.complete(reference);
  await waitFor(async () => (await statusOf(id)) === 'completed', 10_000);
  expect(posts(reference)).toBe(1);
  expect(await held(ws.id)).toBe('0.000000');
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.failed' } })).toBe(0);
});

/** A payout Paystack took while answering 500, kept from verify until the grace window failed it (hold released). */
async function failedByTheGraceWindow(token: string, amount: number) {
  standIn.options.acceptThenFail = true;
  standIn.options.hideFromVerify = true;
  try {
    const row = expectOutcomeUnknown(await transfer('0123456789', amount, token), 502);
    standIn.options.acceptThenFail = false;
    await waitFor(async () => (await statusOf(row.id)) === 'failed', 15_000);
    return row;
  } finally {
    standIn.options.acceptThenFail = false;
    standIn.options.hideFromVerify = false;
  }
}

test('a payout failed by the grace window that Paystack shows after all (paid): nothing moves, and it is found and kept on its attempt for an operator', async () => {
  const ws = await ownWorkspace();
  const row = await failedByTheGraceWindow(ws.key, 70);
  expect(await held(ws.id)).toBe('0.000000');
  // Paystack shows it paid; its notification arrives. The ledger does not move (failed is final), the attempt records it.
  const notified = await notify('transfer.success', row.reference);
  expect(notified.status).toBe(200);
  expect(notified.body.data).toMatchObject({ received: true, kind: 'applied', outcome: 'skipped' });
  const attempt = await waitFor(() =>
    stack.env.db.payoutAttempt.findFirst({ where: { transactionId: row.id, rail: 'paystack', outcome: 'found_after_fail' } }),
  );
  expect(attempt.reason).toMatch(/^paystack answered completed .* after the payout failed/);
  // Counted for the alert where the notification was received.
  expect((await stack.deps.metrics.payoutFoundAfterFail.get()).values.find((v) => v.labels.rail === 'paystack')?.value).toBeGreaterThanOrEqual(1);
  expect(await statusOf(row.id)).toBe('failed');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('1000.000000');
  expect(posts(row.reference)).toBe(1);
  expect(stack.env.logLines.some((l) => l.includes(row.reference) && l.includes('"level":50') && l.includes('found_after_fail'))).toBe(true);
});

test('a payout failed by the grace window whose transfer shows up later without a notification is found by the reconciler', async () => {
  const ws = await ownWorkspace();
  const row = await failedByTheGraceWindow(ws.key, 30);
  // Asked once more a grace window (2.5 s) after it failed.
  const attempt = await waitFor(
    () => stack.env.db.payoutAttempt.findFirst({ where: { transactionId: row.id, rail: 'paystack', outcome: 'found_after_fail' } }),
    15_000,
  );
  expect(attempt.checkedAt).not.toBeNull();
  expect(await statusOf(row.id)).toBe('failed');
  expect(posts(row.reference)).toBe(1);
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('1000.000000');
});

test('transfer.reversed from Paystack (delivered twice): the completed payout becomes reversed and the wallet gets amount and fees back once', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0123456789', 80, ws.key);
  expect(res.body.data.status).toBe('completed');
  const reference = res.body.data.reference;
  standIn.reverse(reference);
  const first = await notify('transfer.reversed', reference);
  const again = await notify('transfer.reversed', reference);
  expect(first.status).toBe(200);
  expect(first.body.data).toMatchObject({ received: true, kind: 'applied', outcome: 'reversed' });
  expect(again.body.data).toMatchObject({ received: true, kind: 'applied', outcome: 'skipped' });
  expect(await statusOf(res.body.data.id)).toBe('reversed');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('1000.000000');
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws.id, category: 'reversal' } })).toBe(1);
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.reversed' } })).toBe(1);
});

test('a forged transfer.reversed (wrong signature) is 401 and changes nothing; one Paystack has not reversed changes nothing either', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0123456789', 30, ws.key);
  const forged = await notify('transfer.reversed', res.body.data.reference, 'sk_test_someone_else');
  expect(forged.status).toBe(401);
  // Signed, but Paystack's verify still says success: the notification is not believed over the rail.
  const unconfirmed = await notify('transfer.reversed', res.body.data.reference);
  expect(unconfirmed.body.data).toMatchObject({ kind: 'applied', outcome: 'skipped' });
  expect(await statusOf(res.body.data.id)).toBe('completed');
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws.id, category: 'reversal' } })).toBe(0);
});

test('a reversal reported for a payout still processing fails it with its hold released, and credits nothing', async () => {
  const ws = await ownWorkspace();
  const res = await transfer('0000000007', 50, ws.key);
  expect(res.body.data.status).toBe('processing');
  expect(await held(ws.id)).toBe('50.000000');
  standIn.reverse(res.body.data.reference);
  const answer = await notify('transfer.reversed', res.body.data.reference);
  expect(answer.body.data).toMatchObject({ kind: 'applied', outcome: 'failed' });
  expect(await statusOf(res.body.data.id)).toBe('failed');
  expect(await held(ws.id)).toBe('0.000000');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('1000.000000');
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws.id, category: 'reversal' } })).toBe(0);
});

test('a worker stopping after the send began records it as possibly sent: the next attempt only asks, and never sends again', async () => {
  const ws = await ownWorkspace();
  const rails = createModeRails(stack.env.config, { redis: stack.env.redis, sql: stack.env.sql });
  const { transaction } = await createTransfer(
    { db: stack.env.db, sql: stack.env.sql, rails: rails.live, feeSchedule: {} },
    { workspaceId: ws.id, currency: 'NGN', amount: new Decimal('20'), accountNumber: '0123456789', bankCode: '058', accountName: 'Ada Obi' },
  );
  // Paystack records the transfer, answers late, and its verify does not show it for a while (a rolling deploy's worst moment).
  standIn.options.behaviour = ({ reference }) => (reference === transaction.reference ? { record: true, answer: 'hang', visibleAfterMs: 60_000 } : undefined);
  const stopping = new AbortController();
  try {
    const run = executePayout({ sql: stack.env.sql, rails, transactionId: transaction.id, log: stack.env.logger, signal: stopping.signal });
    await waitFor(async () => posts(transaction.reference) === 1, 5_000);
    stopping.abort(new Error('payout worker stopping'));
    await expect(run).rejects.toThrow();
    const dispatch = await stack.env.db.payoutDispatch.findUniqueOrThrow({ where: { transactionId: transaction.id } });
    expect(dispatch.outcome).toBe('unknown');
    // The next attempt (another worker takes the job up) asks the rail, which cannot show it yet: nothing is sent again.
    const next = await executePayout({ sql: stack.env.sql, rails, transactionId: transaction.id, log: stack.env.logger });
    expect(next.kind).toBe('unknown');
  } finally {
    standIn.options.behaviour = undefined;
  }
  expect(posts(transaction.reference)).toBe(1);
  expect(await statusOf(transaction.id)).toBe('processing');
  expect(await held(ws.id)).toBe('20.000000');
});

test('Paystack not configured → bank lookup answers 503 provider_error', async () => {
  const gw = await listenGateway<GatewayDeps>(stack.env, {
    createDeps: (config, logger) => createGatewayDeps({ ...config, PAYSTACK_SECRET_KEY: undefined, REDIS_KEY_PREFIX: `${config.REDIS_KEY_PREFIX}nc:` }, logger),
    createApp,
    closeDeps: closeGatewayDeps,
  });
  try {
    const res = await call(gw.url, 'GET', '/v1/banks', { token: key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_error');
  } finally {
    await gw.close();
  }
});

// Risk: a payout over two rails pays twice or never: it moves to the second
// rail while the first may have taken it (a timeout, a 5xx after sending, a
// "duplicate reference"), or it moves on a destination's failure, or it stays
// failed when the first rail was merely down. Gateway, queue, worker and
// reconciler with PAYOUT_RAILS=paystack,flutterwave against both stand-ins.
// Each decision is read from both stand-ins' records: what each rail was
// asked to send, under which reference.
import { randomBytes } from 'node:crypto';
import { findWallet } from '@cowrie/ledger';
import { createMetrics, parseMetrics, sampleValue } from '@cowrie/metrics';
import { transactionWithEvents } from '@cowrie/payouts';
import { startPayoutWorker } from '@cowrie/payout-worker';
import { createUserFor, createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { flutterwaveTransferEvent, startFlutterwaveStandIn, type FlutterwaveStandIn } from '@cowrie/rails/testing';
import { call, sessionSignedInAgo } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let paystack: PaystackStandIn;
let flutterwave: FlutterwaveStandIn;
let stack: Awaited<ReturnType<typeof startPayoutStack>>;

async function ownWorkspace() {
  const ws = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, ws.workspace.id, 'NGN', '1000');
  return { key: ws.key, id: ws.workspace.id };
}
const transfer = (key: string, account: string, amount = 100, bankCode = '058') =>
  call(stack.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', amount, account_number: account, bank_code: bankCode, account_name: 'Ada Obi', narration: `n-${randomBytes(4).toString('hex')}` },
  });
const paystackSends = (reference: string) => paystack.requests.filter((r) => r.method === 'POST' && r.path === '/transfer' && r.body?.reference === reference);
const flutterwaveSends = (reference: string) =>
  flutterwave.requests.filter((r) => r.method === 'POST' && r.path === '/v3/transfers' && String(r.body?.reference ?? '').startsWith(reference));
const attempts = (transactionId: number) =>
  stack.env.db.payoutAttempt.findMany({ where: { transactionId }, orderBy: { createdAt: 'asc' }, select: { rail: true, reference: true, outcome: true } });
const row = (id: number) => stack.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id } });
const held = async (id: number) => (await findWallet(stack.env.db, id, 'NGN'))!.held.toFixed(6);
const resetBreakers = async () => {
  const keys = await stack.env.redis.keys(`${stack.env.config.REDIS_KEY_PREFIX}rails:health:*`);
  if (keys.length) await stack.env.redis.del(...keys);
};

beforeAll(async () => {
  paystack = await startPaystackStandIn();
  flutterwave = await startFlutterwaveStandIn();
  stack = await startPayoutStack({
    PAYOUT_RAILS: 'paystack,flutterwave',
    PAYSTACK_SECRET_KEY: paystack.secret,
    PAYSTACK_BASE_URL: paystack.url,
    PAYSTACK_TIMEOUT_MS: '300',
    PAYOUT_FLUTTERWAVE_SECRET_KEY: flutterwave.secret,
    PAYOUT_FLUTTERWAVE_BASE_URL: flutterwave.url,
    PAYOUT_FLUTTERWAVE_TIMEOUT_MS: '300',
    PAYOUT_FLUTTERWAVE_WEBHOOK_HASH: flutterwave.hash,
    PAYOUT_ROUTING_RULES: JSON.stringify([{ name: 'zenith-to-flutterwave', bank_codes: ['057'], rails: ['flutterwave', 'paystack'] }]),
    PAYOUT_RAIL_COOLDOWN_MS: '60000',
    PAYOUT_SYNC_WAIT_MS: '3000',
    PAYOUT_RECONCILE_EVERY_MS: '300',
    PAYOUT_RECONCILE_AFTER_MS: '500',
    PAYOUT_UNKNOWN_FIRST_CHECK_MS: '200',
    PAYOUT_UNKNOWN_MAX_CHECK_MS: '400',
    PAYOUT_UNKNOWN_GRACE_MS: '2500',
  });
});
beforeEach(async () => {
  paystack.options.mode = 'ok';
  paystack.options.balanceTooLow = false;
  flutterwave.options.balance = null;
  await resetBreakers();
});
afterAll(async () => {
  await stack.close();
  await paystack.close();
  await flutterwave.close();
});

test('with both rails up, a payout goes to the first rail only; its route is recorded on it', async () => {
  const ws = await ownWorkspace();
  const res = await transfer(ws.key, '0123456789');
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject({ status: 'completed', provider: 'paystack', providerReference: expect.stringMatching(/^TRF_/) });
  expect(res.body.data.metadata.rail_route).toEqual({ rails: ['paystack', 'flutterwave'], rule: null });
  expect(paystackSends(res.body.data.reference)).toHaveLength(1);
  expect(flutterwaveSends(res.body.data.reference)).toHaveLength(0);
  expect(await attempts(res.body.data.id)).toEqual([{ rail: 'paystack', reference: res.body.data.reference, outcome: 'sending' }]);
});

test('a routing rule orders the rails per payout (by destination bank) and is recorded', async () => {
  const ws = await ownWorkspace();
  const res = await transfer(ws.key, '0123456789', 100, '057');
  expect(res.body.data).toMatchObject({ status: 'completed', provider: 'flutterwave', providerReference: expect.stringMatching(/^\d+$/) });
  expect(res.body.data.metadata.rail_route).toEqual({ rails: ['flutterwave', 'paystack'], rule: 'zenith-to-flutterwave' });
  // First on its route: sent under the payout's own reference.
  expect(flutterwaveSends(res.body.data.reference).map((r) => r.body.reference)).toEqual([res.body.data.reference]);
  expect(paystackSends(res.body.data.reference)).toHaveLength(0);
});

test('the first rail refusing before accepting (down): the payout moves to the second under its own reference, and the client sees one completed transaction', async () => {
  const ws = await ownWorkspace();
  paystack.options.mode = 'error_500'; // the recipient call fails: nothing was sent
  const res = await transfer(ws.key, '0123456789', 250.5);
  expect(res.status).toBe(201);
  const t = res.body.data;
  expect(t).toMatchObject({ status: 'completed', provider: 'flutterwave', providerReference: expect.stringMatching(/^\d+$/), amount: '250.500000' });
  expect(paystackSends(t.reference)).toHaveLength(0);
  expect(flutterwaveSends(t.reference).map((r) => r.body.reference)).toEqual([`${t.reference}-2`]);
  expect(await attempts(t.id)).toEqual([
    { rail: 'paystack', reference: t.reference, outcome: 'refused' },
    { rail: 'flutterwave', reference: `${t.reference}-2`, outcome: 'sending' },
  ]);
  expect(await held(ws.id)).toBe('0.000000');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('749.500000');
  expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: ws.id, event: 'transfer.completed' } })).toBe(1);
  // The dashboard's transaction detail lists the rails it went through.
  const detail = await transactionWithEvents(stack.env.db, ws.id, t.reference);
  expect(detail.attempts).toEqual([
    expect.objectContaining({ rail: 'paystack', reference: t.reference, outcome: 'refused', reason: expect.stringMatching(/Paystack failed with HTTP 500/) }),
    expect.objectContaining({ rail: 'flutterwave', reference: `${t.reference}-2`, outcome: 'completed', reason: null }),
  ]);
  // The transaction as read later says the same.
  const read = await call(stack.url, 'GET', '/v1/transactions', { token: ws.key });
  expect(read.body.data.find((x: { reference: string }) => x.reference === t.reference)).toMatchObject({
    status: 'completed',
    provider: 'flutterwave',
    providerReference: t.providerReference,
  });
});

test("the first rail's own balance too low is its failure: the payout moves on", async () => {
  const ws = await ownWorkspace();
  paystack.options.balanceTooLow = true;
  const res = await transfer(ws.key, '0123456789');
  expect(res.body.data).toMatchObject({ status: 'completed', provider: 'flutterwave' });
  expect(await attempts(res.body.data.id)).toEqual([
    { rail: 'paystack', reference: res.body.data.reference, outcome: 'failed' },
    { rail: 'flutterwave', reference: `${res.body.data.reference}-2`, outcome: 'sending' },
  ]);
});

test("a destination's failure (a wrong account) never moves on: failed, nothing sent to the second rail", async () => {
  const ws = await ownWorkspace();
  const res = await transfer(ws.key, '0000000006');
  expect(res.body.data).toMatchObject({ status: 'failed', provider: 'paystack' });
  expect(flutterwaveSends(res.body.data.reference)).toHaveLength(0);
  expect(await held(ws.id)).toBe('0.000000');
  // ... nor does it count against the rail's health.
  const health = await stack.env.redis.hget(`${stack.env.config.REDIS_KEY_PREFIX}rails:health:paystack`, 'failures');
  expect(health).toBeNull();
});

test('a timeout after the first rail took the transfer never moves on: unknown, then completed on that rail, sent once', async () => {
  const ws = await ownWorkspace();
  // Recorded, answered after the client gave up, and not shown by verify for a while.
  paystack.options.behaviour = () => ({ record: true, answer: 'hang', visibleAfterMs: 1500 });
  const res = await transfer(ws.key, '0123456789').finally(() => {
    paystack.options.behaviour = undefined;
  });
  expect(res.status).toBe(504);
  expect(res.body.error.details).toMatchObject({ outcome: 'unknown' });
  const t = res.body.error.details.transaction;
  await waitFor(async () => (await row(t.id)).status === 'completed', 10_000);
  expect((await row(t.id)).provider).toBe('paystack');
  expect(paystackSends(t.reference)).toHaveLength(1);
  expect(flutterwaveSends(t.reference)).toHaveLength(0);
});

test('a 5xx on the send is ambiguous and never moves on, even when the rail in fact took nothing: failed only after the grace window', async () => {
  const ws = await ownWorkspace();
  const res = await transfer(ws.key, '0000000009');
  expect(res.status).toBe(502);
  const t = res.body.error.details.transaction;
  expect(await held(ws.id)).toBe('100.000000');
  await waitFor(async () => (await row(t.id)).status === 'failed', 15_000);
  expect(flutterwaveSends(t.reference)).toHaveLength(0);
  expect((await row(t.id)).provider).toBe('paystack');
  expect(await held(ws.id)).toBe('0.000000');
});

test('a hang on the send is ambiguous too: it stays on its rail', async () => {
  const ws = await ownWorkspace();
  const res = await transfer(ws.key, '0000000005');
  expect(res.status).toBe(504);
  const t = res.body.error.details.transaction;
  await waitFor(async () => (await row(t.id)).status === 'failed', 15_000);
  expect(flutterwaveSends(t.reference)).toHaveLength(0);
});

test('both rails refusing: one failed transaction answered with the last rail’s provider error, both attempts on record', async () => {
  const ws = await ownWorkspace();
  paystack.options.mode = 'error_500';
  await flutterwave.goDown();
  try {
    const res = await transfer(ws.key, '0123456789');
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_error');
    expect(res.body.error.message).toMatch(/Flutterwave could not be reached/);
    const listed = await call(stack.url, 'GET', '/v1/transactions', { token: ws.key });
    const payouts = listed.body.data.filter((t: { type: string }) => t.type === 'debit');
    expect(payouts.map((t: { status: string }) => t.status)).toEqual(['failed']);
    const [t] = payouts;
    expect(await attempts(t.id)).toEqual([
      { rail: 'paystack', reference: t.reference, outcome: 'refused' },
      { rail: 'flutterwave', reference: `${t.reference}-2`, outcome: 'sending' },
    ]);
    expect(await held(ws.id)).toBe('0.000000');
  } finally {
    await flutterwave.comeUp();
  }
});

test('a rail that refused is passed over while it cools down (no call at all), then one probe payout tries it again and closes the breaker', async () => {
  const ws = await ownWorkspace();
  paystack.options.mode = 'error_500';
  await transfer(ws.key, '0123456789');
  paystack.options.mode = 'ok';
  const recipientCalls = paystack.count('POST', '/transferrecipient');
  const passedOver = await transfer(ws.key, '0123456789');
  expect(passedOver.body.data).toMatchObject({ status: 'completed', provider: 'flutterwave' });
  expect(paystack.count('POST', '/transferrecipient')).toBe(recipientCalls);
  expect((await attempts(passedOver.body.data.id))[0]).toMatchObject({ rail: 'paystack', outcome: 'skipped' });
  const health = await call(stack.url, 'GET', '/readyz');
  expect(health.body.data.payout_rails).toEqual([
    { rail: 'paystack', state: 'open', failures: 1, open_until: expect.any(String) },
    { rail: 'flutterwave', state: 'closed', failures: 0, open_until: null },
  ]);
  // ... and so does the dashboard's read of them (the session's live side; its test side pays on the sandbox alone).
  const user = await createUserFor(stack.env.db, ws.id);
  const token = await sessionSignedInAgo(stack, user, 0);
  expect((await call(stack.url, 'GET', '/payout-rails', { token })).body.data).toEqual(health.body.data.payout_rails);
  expect((await call(stack.url, 'GET', '/payout-rails', { token, headers: { 'Cowrie-Mode': 'test' } })).body.data).toEqual([
    { rail: 'sandbox', state: 'closed', failures: 0, open_until: null },
  ]);
  // ... and so do the payout worker's metrics.
  const metrics = createMetrics({ service: 'payout-worker', processMetrics: false });
  const metered = await startPayoutWorker(stack.env.config, stack.env.logger, { metrics });
  try {
    const samples = parseMetrics(await metrics.registry.metrics());
    expect(sampleValue(samples, 'cowrie_payout_rail_state', { rail: 'paystack', state: 'open' })).toBe(1);
    expect(sampleValue(samples, 'cowrie_payout_rail_state', { rail: 'paystack', state: 'closed' })).toBe(0);
    expect(sampleValue(samples, 'cowrie_payout_rail_state', { rail: 'flutterwave', state: 'closed' })).toBe(1);
  } finally {
    await metered.stop();
  }

  // The cool-down ends: the next payout is the probe, and its success closes the breaker.
  await stack.env.redis.hset(`${stack.env.config.REDIS_KEY_PREFIX}rails:health:paystack`, 'openUntil', String(Date.now() - 1));
  const probe = await transfer(ws.key, '0123456789');
  expect(probe.body.data).toMatchObject({ status: 'completed', provider: 'paystack' });
  expect(await stack.env.redis.exists(`${stack.env.config.REDIS_KEY_PREFIX}rails:health:paystack`)).toBe(0);
});

test('a failing probe opens the breaker again for twice as long', async () => {
  const ws = await ownWorkspace();
  const key = `${stack.env.config.REDIS_KEY_PREFIX}rails:health:paystack`;
  paystack.options.mode = 'error_500';
  await transfer(ws.key, '0123456789');
  await stack.env.redis.hset(key, 'openUntil', String(Date.now() - 1));
  const before = Date.now();
  const probe = await transfer(ws.key, '0123456789');
  expect(probe.body.data).toMatchObject({ status: 'completed', provider: 'flutterwave' });
  expect(await stack.env.redis.hget(key, 'failures')).toBe('2');
  expect(Number(await stack.env.redis.hget(key, 'openUntil'))).toBeGreaterThanOrEqual(before + 120_000);
});

test('Flutterwave notifications arrive on the notification path, verified by verif-hash; a reversal is taken from the rail that paid', async () => {
  const ws = await ownWorkspace();
  paystack.options.mode = 'error_500';
  const res = await transfer(ws.key, '0123456789', 200);
  const t = res.body.data;
  expect(t.provider).toBe('flutterwave');
  flutterwave.reverse(`${t.reference}-2`);
  const { rawBody, headers } = flutterwaveTransferEvent(flutterwave.hash, flutterwave.transfers.get(`${t.reference}-2`)!);
  const refused = await fetch(`${stack.url}/rails/flutterwave/notifications`, {
    method: 'POST',
    headers: { ...headers, 'verif-hash': 'wrong' },
    body: rawBody,
  });
  expect(refused.status).toBe(401);
  const ok = await fetch(`${stack.url}/rails/flutterwave/notifications`, { method: 'POST', headers, body: rawBody });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { data: unknown }).data).toMatchObject({ kind: 'applied', outcome: 'reversed' });
  const again = await fetch(`${stack.url}/rails/flutterwave/notifications`, { method: 'POST', headers, body: rawBody });
  expect(((await again.json()) as { data: unknown }).data).toMatchObject({ kind: 'applied', outcome: 'skipped' });
  expect((await row(t.id)).status).toBe('reversed');
  expect((await findWallet(stack.env.db, ws.id, 'NGN'))!.balance.toFixed(6)).toBe('1000.000000');
  // A notification naming the payout's reference on the rail that did not pay it is no payout of that rail's.
  const wrongRail = flutterwaveTransferEvent(flutterwave.hash, { id: 1, reference: t.reference, status: 'SUCCESSFUL' });
  const unmatched = await fetch(`${stack.url}/rails/flutterwave/notifications`, { method: 'POST', headers: wrongRail.headers, body: wrongRail.rawBody });
  expect(((await unmatched.json()) as { data: unknown }).data).toEqual({ received: true, kind: 'unmatched' });
});

test("a rail notification asks the rail through the gateway's payout rails: the call is timed like every other (cowrie_rail_call_*)", async () => {
  const verifyCalls = async () =>
    sampleValue(parseMetrics(await stack.deps.metrics.registry.metrics()), 'cowrie_rail_call_duration_seconds_count', {
      rail: 'payout:flutterwave',
      operation: 'verifyTransfer',
      outcome: 'ok',
    }) ?? 0;
  const ws = await ownWorkspace();
  paystack.options.mode = 'error_500';
  const t = (await transfer(ws.key, '0123456789')).body.data;
  expect(t.provider).toBe('flutterwave');
  const before = await verifyCalls();
  const { rawBody, headers } = flutterwaveTransferEvent(flutterwave.hash, flutterwave.transfers.get(`${t.reference}-2`)!);
  const res = await fetch(`${stack.url}/rails/flutterwave/notifications`, { method: 'POST', headers, body: rawBody });
  expect(res.status).toBe(200);
  expect(await verifyCalls()).toBe(before + 1);
});

// Risk: a payout over two rails paid on both, or failed while a rail pays it,
// when executions overlap: a worker that died (or a stalled job re-run) after
// its send reached the first rail, whose resend that rail then refuses; a
// stale execution's late answer from a rail the payout has left; a crash
// between the move and the next rail's call; and the moves made by the
// outcome check and by a notification. Each execution is called directly (no
// worker, so the order is the test's), against the Paystack and Flutterwave
// stand-ins, whose records say what each rail was asked to send.
import { Decimal, type Config } from '@cowrie/core';
import { findWallet } from '@cowrie/ledger';
import { createTestEnv } from '@cowrie/ledger/testing';
import {
  DEFAULT_OUTCOME_SCHEDULE,
  FOUND_AFTER_MOVE,
  applyRailResult,
  awaitUnknownOutcome,
  checkDuePayouts,
  checkEarlierAttempts,
  createTransfer,
  executePayout,
  failOver,
  failWithProviderError,
  receivePayoutNotification,
  reconcilePayouts,
} from '@cowrie/payouts';
import { createModeRails, type ModeRails } from '@cowrie/rails';
import { startFlutterwaveStandIn, type FlutterwaveStandIn } from '@cowrie/rails/testing';
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { createWorkspaceWithKey, waitFor, type TestEnv } from '@cowrie/testing';
import { fund } from './payout-stack';

let env: TestEnv;
let paystack: PaystackStandIn;
let flutterwave: FlutterwaveStandIn;
let rails: ModeRails;
/** The same deployment with Paystack alone: a payout of one rail. */
let paystackOnly: ModeRails;
const schedule = { ...DEFAULT_OUTCOME_SCHEDULE, firstCheckMs: 10, maxCheckMs: 10, graceMs: 1_000 };
const later = () => new Date(Date.now() + 60_000);

beforeAll(async () => {
  paystack = await startPaystackStandIn();
  flutterwave = await startFlutterwaveStandIn();
  env = await createTestEnv({
    PAYOUT_RAILS: 'paystack,flutterwave',
    PAYSTACK_SECRET_KEY: paystack.secret,
    PAYSTACK_BASE_URL: paystack.url,
    PAYSTACK_TIMEOUT_MS: '5000',
    PAYOUT_FLUTTERWAVE_SECRET_KEY: flutterwave.secret,
    PAYOUT_FLUTTERWAVE_BASE_URL: flutterwave.url,
    PAYOUT_FLUTTERWAVE_TIMEOUT_MS: '5000',
    PAYOUT_ROUTING_RULES: JSON.stringify([{ name: 'zenith-to-flutterwave', bank_codes: ['057'], rails: ['flutterwave', 'paystack'] }]),
  });
  rails = createModeRails(env.config, { redis: env.redis, sql: env.sql });
  const oneRail: Config = { ...env.config, PAYOUT_RAIL: 'paystack', PAYOUT_RAILS: ['paystack'], PAYOUT_ROUTING_RULES: '' };
  paystackOnly = createModeRails(oneRail, { redis: env.redis, sql: env.sql });
});
beforeEach(async () => {
  paystack.options.rateLimited = false;
  paystack.options.behaviour = undefined;
  flutterwave.options.behaviour = undefined;
  const keys = await env.redis.keys(`${env.config.REDIS_KEY_PREFIX}rails:health:*`);
  if (keys.length) await env.redis.del(...keys);
});
afterAll(async () => {
  await env.cleanup();
  await paystack.close();
  await flutterwave.close();
});

async function newPayout(modeRails: ModeRails, bankCode = '058') {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fund(env.db, workspace.id, 'NGN', '1000');
  const { transaction } = await createTransfer(
    { db: env.db, sql: env.sql, rails: modeRails.live, feeSchedule: {} },
    { workspaceId: workspace.id, currency: 'NGN', amount: new Decimal('100'), accountNumber: '0123456789', bankCode, accountName: 'Ada Obi' },
  );
  return { payout: transaction, workspaceId: workspace.id };
}
const run = (modeRails: ModeRails, transactionId: number, signal?: AbortSignal) =>
  executePayout({ sql: env.sql, rails: modeRails, transactionId, log: env.logger, schedule, signal });
const paystackSends = (reference: string) => paystack.requests.filter((r) => r.method === 'POST' && r.path === '/transfer' && r.body?.reference === reference);
const flutterwaveSends = (reference: string) =>
  flutterwave.requests.filter((r) => r.method === 'POST' && r.path === '/v3/transfers' && String(r.body?.reference ?? '').startsWith(reference));
const row = (id: number) => env.db.ledgerTransaction.findUniqueOrThrow({ where: { id } });
const wallet = async (workspaceId: number) => {
  const w = (await findWallet(env.db, workspaceId, 'NGN'))!;
  return { balance: w.balance.toFixed(2), held: w.held.toFixed(2) };
};
const attempts = (transactionId: number) =>
  env.db.payoutAttempt.findMany({
    where: { transactionId },
    orderBy: [{ createdAt: 'asc' }, { rail: 'desc' }],
    select: { rail: true, reference: true, outcome: true },
  });

/**
 * Worker 1 sends to Paystack, which records the transfer and never answers
 * (the worker is killed, or its job stalls); Paystack's verify cannot show it
 * for a while. Resolves once Paystack holds it; `stop` ends worker 1.
 */
async function firstSendHangs(modeRails: ModeRails, payout: { id: number; reference: string }) {
  paystack.options.behaviour = ({ reference }) => (reference === payout.reference ? { record: true, answer: 'hang', visibleAfterMs: 1_500 } : undefined);
  const stopping = new AbortController();
  const first = run(modeRails, payout.id, stopping.signal).catch((err: unknown) => err);
  await waitFor(async () => paystackSends(payout.reference).length === 1, 5_000);
  return {
    stop: async () => {
      stopping.abort(new Error('worker 1 stopped'));
      await first;
    },
  };
}

test('a resend refused by the rail an earlier attempt may have reached never moves to the next rail: unknown there, then paid there once', async () => {
  const { payout, workspaceId } = await newPayout(rails);
  const worker1 = await firstSendHangs(rails, payout);
  // The stalled job runs again: Paystack cannot show the transfer yet, and rate limits the resend.
  paystack.options.rateLimited = true;
  const second = await run(rails, payout.id);
  expect(second.kind).toBe('unknown');
  expect(flutterwaveSends(payout.reference)).toHaveLength(0);
  expect(await row(payout.id)).toMatchObject({ status: 'processing', provider: 'paystack' });
  expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '100.00' });
  await worker1.stop();

  // Paystack shows it: the outcome check settles it on Paystack.
  paystack.options.rateLimited = false;
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  await checkDuePayouts({ sql: env.sql, rails, schedule, log: env.logger, now: later() });
  expect(await row(payout.id)).toMatchObject({ status: 'completed', provider: 'paystack' });
  // Asked twice (the resend was refused), holding it once; Flutterwave never asked.
  expect(paystackSends(payout.reference)).toHaveLength(2);
  expect(paystack.transfers.has(payout.reference)).toBe(true);
  expect(flutterwaveSends(payout.reference)).toHaveLength(0);
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('one rail: a resend refused after an attempt that may have reached the rail does not fail the payout or release its hold', async () => {
  const { payout, workspaceId } = await newPayout(paystackOnly);
  const worker1 = await firstSendHangs(paystackOnly, payout);
  paystack.options.rateLimited = true;
  const second = await run(paystackOnly, payout.id);
  expect(second.kind).toBe('unknown');
  expect(await row(payout.id)).toMatchObject({ status: 'processing' });
  expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '100.00' });
  await worker1.stop();
  paystack.options.rateLimited = false;
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  await checkDuePayouts({ sql: env.sql, rails: paystackOnly, schedule, log: env.logger, now: later() });
  expect(await row(payout.id)).toMatchObject({ status: 'completed' });
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('answers from a rail the payout has left (a stale execution) change nothing on it; a paid one is kept on that rail’s attempt', async () => {
  const { payout, workspaceId } = await newPayout(rails);
  const stale = await row(payout.id);
  const moved = await failOver(env.sql, stale, 'flutterwave', { outcome: 'refused', reason: 'Paystack is rate limiting Cowrie' });
  expect(moved).not.toBeNull();
  // Worker 1, which still thinks the payout is on Paystack, hears back.
  const failed = { status: 'failed' as const, providerReference: 'TRF_A', reason: 'Account resolve failed', failure: 'destination' as const, raw: {} };
  await expect(applyRailResult(env.sql, stale, failed, schedule, env.logger)).resolves.toEqual({ kind: 'skipped', status: null });
  // A pending answer says Paystack holds it: not applied, kept on its attempt (and named, to be counted).
  await expect(applyRailResult(env.sql, stale, { status: 'pending', providerReference: 'TRF_A', raw: {} }, schedule, env.logger)).resolves.toEqual({
    kind: 'skipped',
    status: null,
    found: { rail: 'paystack', outcome: FOUND_AFTER_MOVE },
  });
  await expect(awaitUnknownOutcome(env.sql, stale, schedule, { status: 504, message: 'timeout' })).resolves.toEqual({ kind: 'skipped', status: null });
  await expect(failWithProviderError(env.sql, stale, { status: 503, message: 'rate limited' })).resolves.toEqual({ kind: 'skipped', status: null });
  expect(await row(payout.id)).toMatchObject({ status: 'processing', provider: 'flutterwave', providerReference: null });
  expect(await env.db.payoutDispatch.findUnique({ where: { transactionId: payout.id } })).toBeNull();
  expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '100.00' });

  // Paystack saying it paid after all is kept on its attempt (its latest answer), never applied, and not named again:
  // the attempt was found once, so it is counted once.
  await expect(applyRailResult(env.sql, stale, { status: 'completed', providerReference: 'TRF_A', raw: {} }, schedule, env.logger)).resolves.toEqual({
    kind: 'skipped',
    status: null,
  });
  const paystackAttempt = await env.db.payoutAttempt.findUnique({ where: { transactionId_rail: { transactionId: payout.id, rail: 'paystack' } } });
  expect(paystackAttempt?.reason).toBe('paystack answered completed (TRF_A) after the payout moved to another rail');
  // Its rail has answered: the check of earlier attempts does not ask it again.
  expect(paystackAttempt?.checkedAt).not.toBeNull();
  expect(await attempts(payout.id)).toEqual([
    { rail: 'paystack', reference: payout.reference, outcome: FOUND_AFTER_MOVE },
    { rail: 'flutterwave', reference: `${payout.reference}-2`, outcome: 'sending' },
  ]);
  expect(await row(payout.id)).toMatchObject({ status: 'processing', provider: 'flutterwave' });

  // Flutterwave's own answer settles it; a reversal Paystack reports afterwards is not this payout's.
  await applyRailResult(env.sql, moved!, { status: 'completed', providerReference: '777', raw: {} }, schedule, env.logger);
  await applyRailResult(env.sql, { ...stale, status: 'completed' }, { status: 'reversed', providerReference: 'TRF_A', raw: {} }, schedule, env.logger);
  expect(await row(payout.id)).toMatchObject({ status: 'completed', provider: 'flutterwave', providerReference: '777' });
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('a move and a stale close racing: exactly one of them happens', async () => {
  for (let i = 0; i < 8; i++) {
    const { payout, workspaceId } = await newPayout(rails);
    const stale = await row(payout.id);
    const [moved, closed] = await Promise.all([
      failOver(env.sql, stale, 'flutterwave', { outcome: 'refused', reason: 'down' }),
      applyRailResult(env.sql, stale, { status: 'failed', providerReference: null, reason: 'Account resolve failed', failure: 'destination', raw: {} }),
    ]);
    const now = await row(payout.id);
    if (moved) {
      expect(closed.kind).toBe('skipped');
      expect(now).toMatchObject({ status: 'processing', provider: 'flutterwave' });
      expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '100.00' });
      // Settle it on Flutterwave so the file leaves nothing open.
      await applyRailResult(env.sql, moved, { status: 'failed', providerReference: null, reason: 'Account resolve failed', failure: 'destination', raw: {} });
    } else {
      expect(closed.kind).toBe('failed');
      expect(now).toMatchObject({ status: 'failed', provider: 'paystack' });
    }
    expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '0.00' });
  }
});

test('the outcome check moves a pending transfer the first rail later fails for its own reason; the re-run pays on the second rail', async () => {
  const { payout, workspaceId } = await newPayout(rails, '057');
  flutterwave.options.behaviour = ({ reference }) =>
    reference === payout.reference
      ? { record: true, answer: 'ok', settle: { afterMs: 50, status: 'FAILED', message: 'Insufficient funds in customer wallet' } }
      : undefined;
  await expect(run(rails, payout.id)).resolves.toEqual({ kind: 'pending' });
  await new Promise((resolve) => setTimeout(resolve, 150));
  const checked = await checkDuePayouts({ sql: env.sql, rails, schedule, log: env.logger, now: later() });
  expect(checked.outcomes).toEqual(['pending']);
  expect(await row(payout.id)).toMatchObject({ status: 'processing', provider: 'paystack' });
  await expect(run(rails, payout.id)).resolves.toMatchObject({ kind: 'completed' });
  expect(await attempts(payout.id)).toEqual([
    { rail: 'flutterwave', reference: payout.reference, outcome: 'failed' },
    { rail: 'paystack', reference: `${payout.reference}-2`, outcome: 'sending' },
  ]);
  expect(paystackSends(`${payout.reference}-2`)).toHaveLength(1);
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('a notification of the first rail’s own failure moves the payout; the re-run pays on the second rail', async () => {
  const { payout, workspaceId } = await newPayout(rails, '057');
  flutterwave.options.behaviour = ({ reference }) =>
    reference === payout.reference
      ? { record: true, answer: 'ok', settle: { afterMs: 50, status: 'FAILED', message: 'Insufficient funds in customer wallet' } }
      : undefined;
  await expect(run(rails, payout.id)).resolves.toEqual({ kind: 'pending' });
  await new Promise((resolve) => setTimeout(resolve, 150));
  const notified = await receivePayoutNotification(
    { sql: env.sql, rails, log: env.logger },
    { provider: 'flutterwave', event: 'transfer.completed', reference: payout.reference, payload: {} },
  );
  expect(notified).toEqual({ kind: 'applied', outcome: 'pending' });
  expect(await row(payout.id)).toMatchObject({ status: 'processing', provider: 'paystack' });
  await expect(run(rails, payout.id)).resolves.toMatchObject({ kind: 'completed' });
  expect(paystackSends(`${payout.reference}-2`)).toHaveLength(1);
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('a crash after the move and before the second rail was called: the re-queued payout asks that rail, then sends there once', async () => {
  const { payout, workspaceId } = await newPayout(rails);
  // What the crashed worker left: its take-up, and the move (the second rail's attempt on record, nothing sent there).
  await env.db.payoutDispatch.create({ data: { transactionId: payout.id, attempts: 1 } });
  expect(await failOver(env.sql, await row(payout.id), 'flutterwave', { outcome: 'refused', reason: 'Paystack is rate limiting Cowrie' })).not.toBeNull();
  const requeued: number[] = [];
  await reconcilePayouts({ sql: env.sql, olderThanMs: 0, now: later(), hasLiveJob: async () => false, requeue: async (p) => void requeued.push(p.id) });
  expect(requeued).toContain(payout.id);
  await expect(run(rails, payout.id)).resolves.toMatchObject({ kind: 'completed' });
  const asked = flutterwave.requests.filter((r) => r.method === 'GET' && r.path === '/v3/transfers' && r.query.reference === `${payout.reference}-2`);
  expect(asked.length).toBeGreaterThanOrEqual(1);
  expect(flutterwaveSends(payout.reference).map((r) => r.body.reference)).toEqual([`${payout.reference}-2`]);
  expect(paystackSends(payout.reference)).toHaveLength(0);
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
});

test('each rail a payout moved on from is asked once after the grace window; one that holds the transfer after all is kept for an operator, no money moved', async () => {
  const { payout, workspaceId } = await newPayout(rails);
  paystack.options.rateLimited = true;
  await expect(run(rails, payout.id)).resolves.toMatchObject({ kind: 'completed' });
  expect(await row(payout.id)).toMatchObject({ status: 'completed', provider: 'flutterwave' });
  paystack.options.rateLimited = false;
  // Paystack, which refused, pays it all the same (what the move assumed could not happen).
  await rails.live.byId('paystack').transfer({
    reference: payout.reference,
    amount: new Decimal('100'),
    currency: 'NGN',
    accountNumber: '0123456789',
    bankCode: '058',
    accountName: 'Ada Obi',
    narration: payout.description,
  });
  // Not before the grace window.
  const longGrace = { ...schedule, graceMs: 600_000 };
  await expect(checkEarlierAttempts({ sql: env.sql, rails, schedule: longGrace, log: env.logger })).resolves.toEqual({ checked: 0, found: [] });
  // After it (the other tests' moves are asked too: only this one's rail holds a transfer).
  await expect(checkEarlierAttempts({ sql: env.sql, rails, schedule, log: env.logger, now: later() })).resolves.toMatchObject({
    found: [{ rail: 'paystack', outcome: FOUND_AFTER_MOVE }],
  });
  expect((await attempts(payout.id))[0]).toMatchObject({ rail: 'paystack', outcome: FOUND_AFTER_MOVE });
  expect(await row(payout.id)).toMatchObject({ status: 'completed', provider: 'flutterwave' });
  expect(await wallet(workspaceId)).toEqual({ balance: '900.00', held: '0.00' });
  // Once.
  await expect(checkEarlierAttempts({ sql: env.sql, rails, schedule, log: env.logger, now: later() })).resolves.toEqual({ checked: 0, found: [] });
});

test('a reversal applied while the transfer call is out fails the payout; the call’s own late “paid” answer is not kept as found after the failure (the rail, asked, says reversed)', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const workspaceId = workspace.id;
  await fund(env.db, workspaceId, 'NGN', '1000');
  // Account 0000000008: Paystack records the transfer as paid at once and answers the call (paid) only after hangMs.
  const { transaction: payout } = await createTransfer(
    { db: env.db, sql: env.sql, rails: paystackOnly.live, feeSchedule: {} },
    { workspaceId, currency: 'NGN', amount: new Decimal('100'), accountNumber: '0000000008', bankCode: '058', accountName: 'Ada Obi' },
  );
  const hangMs = paystack.options.hangMs;
  paystack.options.hangMs = 1_500;
  try {
    const running = run(paystackOnly, payout.id);
    await waitFor(() => paystack.transfers.has(payout.reference));
    // The bank returns it, and its notification is applied while the worker still waits for the call's answer.
    paystack.reverse(payout.reference);
    await expect(
      applyRailResult(env.sql, await row(payout.id), { status: 'reversed', providerReference: 'TRF_R', raw: { status: 'reversed' } }, schedule, env.logger),
    ).resolves.toMatchObject({ kind: 'failed' });
    await expect(running).resolves.toEqual({ kind: 'skipped', status: null });
  } finally {
    paystack.options.hangMs = hangMs;
  }
  expect(await attempts(payout.id)).toEqual([{ rail: 'paystack', reference: payout.reference, outcome: 'sending' }]);
  expect(await row(payout.id)).toMatchObject({ status: 'failed' });
  expect(await wallet(workspaceId)).toEqual({ balance: '1000.00', held: '0.00' });
});

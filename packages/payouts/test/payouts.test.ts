// Risk: the payout rules under the API: fees not held or not charged, a
// duplicate idempotency_key racing past the check, a replayed job moving money
// again, an unconfigured rail leaving a hold behind.
import { Client } from 'pg';
import { Decimal, loadConfig } from '@cowrie/core';
import { createSqlPool } from '@cowrie/db';
import { auditWallet, findWallet, newReference, renderBalance } from '@cowrie/ledger';
import { createModeRails, createRails, type ModeRails } from '@cowrie/rails';
import { countingStatements, createWorkspaceWithKey, waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { applyRailResult, createTransfer, executePayout, payoutAnswerFromOutcome, payoutFee, readPayoutAnswer, type PayoutDeps } from '../src';

let env: TestEnv;
let deps: PayoutDeps;
let modeRails: ModeRails;

beforeAll(async () => {
  env = await createTestEnv();
  modeRails = createModeRails(env.config, { redis: env.redis, sql: env.sql });
  deps = { db: env.db, sql: env.sql, rails: modeRails.live, feeSchedule: {} };
});
afterAll(() => env.cleanup());

async function funded(amount: string) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, amount);
  return workspace.id;
}
const send = (d: PayoutDeps, workspaceId: number, amount: string, extra: object = {}) =>
  createTransfer(d, { workspaceId, currency: 'NGN', amount: new Decimal(amount), accountNumber: '0123456789', bankCode: '058', ...extra });

test('fee schedule: flat + percent, capped, per currency or "*", none by default', () => {
  const schedule = loadConfig({ PAYOUT_FEE_SCHEDULE: '{"NGN":{"flat":"10","percent":"1.5","cap":"50"},"*":{"flat":"0.25"}}' }).PAYOUT_FEE_SCHEDULE;
  expect(payoutFee(schedule, 'ngn', new Decimal('100')).toFixed(6)).toBe('11.500000');
  expect(payoutFee(schedule, 'NGN', new Decimal('10000')).toFixed(6)).toBe('50.000000');
  expect(payoutFee(schedule, 'NGN', new Decimal('0.333333')).toFixed(6)).toBe('10.005000');
  expect(payoutFee(schedule, 'EUR', new Decimal('100')).toFixed(6)).toBe('0.250000');
  expect(payoutFee({}, 'NGN', new Decimal('100')).toFixed(6)).toBe('0.000000');
  expect(() => loadConfig({ PAYOUT_FEE_SCHEDULE: '{"NGN":{"percent":"abc"}}' })).toThrow(/PAYOUT_FEE_SCHEDULE/);
});

test('fees: the hold covers amount + fees, the balance check counts them, settlement charges both', async () => {
  const feeDeps = { ...deps, feeSchedule: { NGN: { flat: '10', percent: '1' } } };
  const workspaceId = await funded('100');
  await expect(send(feeDeps, workspaceId, '90')).rejects.toMatchObject({ code: 'invalid_request', message: 'Exceeds balance: 100.000000 NGN' });
  const { transaction } = await send(feeDeps, workspaceId, '80');
  expect(transaction.fees.toFixed(6)).toBe('10.800000');
  expect((await findWallet(env.db, workspaceId, 'NGN'))!.held.toFixed(6)).toBe('90.800000');
  await expect(executePayout({ sql: env.sql, rails: modeRails, transactionId: transaction.id, log: env.logger })).resolves.toMatchObject({ kind: 'completed' });
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(wallet.balance.toFixed(6)).toBe('9.200000');
  expect(wallet.held.toFixed(6)).toBe('0.000000');
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('a duplicate idempotency_key that races past the lookup is stopped by the unique index and answers the first row', async () => {
  const workspaceId = await funded('100');
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  // Another request has inserted the key but not committed yet.
  const other = new Client({ connectionString: env.config.DATABASE_URL });
  await other.connect();
  const reference = newReference('snd');
  await other.query('BEGIN');
  const inserted = await other.query(
    `INSERT INTO "LedgerTransaction" ("workspaceId","walletId","type","direction","category","channel","status","reference","idempotencyKey","currency","amount","title","description","provider","updatedAt")
     VALUES ($1,$2,'debit','out','send','transfer','processing',$3,'race-key','NGN',5,'t','d','sandbox',now()) RETURNING id`,
    [workspaceId, wallet.id, reference],
  );
  // With its hold, as every payout has one (the ledger auditor checks it at the end).
  await other.query(`INSERT INTO "LedgerEntry" ("walletId","transactionId","kind","balanceDelta","heldDelta") VALUES ($1,$2,'hold',0,5)`, [
    wallet.id,
    inserted.rows[0].id,
  ]);
  await other.query(`UPDATE "Wallet" SET "held" = "held" + 5 WHERE "id" = $1`, [wallet.id]);
  const racing = send(deps, workspaceId, '5', { idempotencyKey: 'race-key' });
  // Wait until the racing insert is blocked on the unique index, then let the first commit.
  await waitFor(async () => {
    const [row] = await env.db.$queryRaw<
      Array<{ n: number }>
    >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    return row!.n > 0;
  });
  await other.query('COMMIT');
  await other.end();
  const result = await racing;
  expect(result.created).toBe(false);
  expect(result.transaction.id).toBe(inserted.rows[0].id);
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId, idempotencyKey: 'race-key' } })).toBe(1);
  // Only the first payout's hold: the racing one's was undone with its refused insert.
  expect((await findWallet(env.db, workspaceId, 'NGN'))!.held.toFixed(6)).toBe('5.000000');
});

test('a replayed payout job changes nothing once the row is final', async () => {
  const workspaceId = await funded('50');
  const { transaction } = await send(deps, workspaceId, '20');
  const run = () => executePayout({ sql: env.sql, rails: modeRails, transactionId: transaction.id, log: env.logger });
  await expect(run()).resolves.toMatchObject({ kind: 'completed' });
  await expect(run()).resolves.toEqual({ kind: 'skipped', status: 'completed' });
  expect((await env.db.ledgerEntry.findMany({ where: { transactionId: transaction.id } })).map((e) => e.kind).sort()).toEqual(['hold', 'settle']);
  expect(await env.db.outboxEvent.count({ where: { workspaceId } })).toBe(1);
  await expect(executePayout({ sql: env.sql, rails: modeRails, transactionId: 99_999_999, log: env.logger })).resolves.toEqual({
    kind: 'skipped',
    status: null,
  });
});

test('a rail that is not configured: the payout fails with 503 provider_error and its hold is released', async () => {
  const unconfigured = createRails({ ...env.config, PAYOUT_RAIL: 'paystack', PAYOUT_PAYSTACK_SECRET_KEY: undefined }, { redis: env.redis, sql: env.sql });
  const workspaceId = await funded('50');
  const { transaction } = await send({ ...deps, rails: unconfigured }, workspaceId, '20');
  expect(transaction.provider).toBe('paystack');
  await expect(
    executePayout({ sql: env.sql, rails: { ...modeRails, live: unconfigured }, transactionId: transaction.id, log: env.logger }),
  ).resolves.toMatchObject({ kind: 'provider_error', status: 503 });
  const answer = await readPayoutAnswer(env.sql, transaction.id);
  expect(answer.transaction.status).toBe('failed');
  expect(answer.providerError).toMatchObject({ status: 503, message: expect.stringMatching(/not configured/) });
  expect((await findWallet(env.db, workspaceId, 'NGN'))!.held.toFixed(6)).toBe('0.000000');
});

test('a payout moves its amount from available to pending; a completion settles it once', async () => {
  const workspaceId = await funded('50');
  const { transaction } = await send(deps, workspaceId, '20');
  expect(renderBalance((await findWallet(env.db, workspaceId, 'NGN'))!)).toMatchObject({ available: '30.000000', pending: '20.000000', ledger: '50.000000' });
  const row = (await env.db.ledgerTransaction.findUnique({ where: { id: transaction.id } }))!;
  await expect(applyRailResult(env.sql, row, { status: 'completed', providerReference: null, raw: {} })).resolves.toMatchObject({ kind: 'completed' });
  await expect(applyRailResult(env.sql, row, { status: 'completed', providerReference: null, raw: {} })).resolves.toEqual({ kind: 'skipped', status: null });
  await expect(applyRailResult(env.sql, row, { status: 'failed', providerReference: null, raw: {} })).resolves.toEqual({ kind: 'skipped', status: null });
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '30.000000', pending: '0.000000', ledger: '30.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('a failed payout gives the money back to available', async () => {
  const workspaceId = await funded('50');
  const { transaction } = await send(deps, workspaceId, '50');
  const row = (await env.db.ledgerTransaction.findUnique({ where: { id: transaction.id } }))!;
  await expect(applyRailResult(env.sql, row, { status: 'failed', providerReference: null, reason: 'Account closed', raw: {} })).resolves.toMatchObject({
    kind: 'failed',
    reason: 'Account closed',
    transaction: { status: 'failed' },
  });
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '50.000000', pending: '0.000000', ledger: '50.000000' });
  expect((await env.db.ledgerEntry.findMany({ where: { transactionId: transaction.id } })).map((e) => e.kind).sort()).toEqual(['hold', 'release']);
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('100 concurrent payouts of 1.00 from a wallet holding 30.00: exactly 30 open, never an overdraft', async () => {
  const workspaceId = await funded('30');
  const results = await Promise.allSettled(Array.from({ length: 100 }, () => send(deps, workspaceId, '1')));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(30);
  for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'invalid_request', message: 'Exceeds balance: 0.000000 NGN' });
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  const audit = await auditWallet(env.db, wallet.id);
  expect(audit.consistent).toBe(true);
  expect(audit.held.toFixed(6)).toBe('30.000000');
  expect(audit.balance.minus(audit.held).toFixed(6)).toBe('0.000000');
});

test('a completion racing a failure: exactly one applies, with one event', async () => {
  const workspaceId = await funded('10');
  const { transaction } = await send(deps, workspaceId, '10');
  const row = (await env.db.ledgerTransaction.findUnique({ where: { id: transaction.id } }))!;
  const outcomes = await Promise.all([
    applyRailResult(env.sql, row, { status: 'completed', providerReference: null, raw: {} }),
    applyRailResult(env.sql, row, { status: 'failed', providerReference: null, raw: {} }),
  ]);
  expect(outcomes.filter((o) => o.kind !== 'skipped')).toHaveLength(1);
  const entries = (await env.db.ledgerEntry.findMany({ where: { transactionId: transaction.id } })).map((e) => e.kind);
  expect(entries).toHaveLength(2);
  expect(await env.db.outboxEvent.count({ where: { workspaceId } })).toBe(1);
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  const audit = await auditWallet(env.db, wallet.id);
  expect(audit.consistent).toBe(true);
  expect(audit.held.toFixed(6)).toBe('0.000000');
});

test('the transfer.* event and the worker outcome carry the row exactly as the finish committed it', async () => {
  const workspaceId = await funded('10');
  const { transaction } = await send(deps, workspaceId, '10', { accountName: undefined });
  const outcome = await executePayout({ sql: env.sql, rails: modeRails, transactionId: transaction.id, log: env.logger });
  const stored = (await readPayoutAnswer(env.sql, transaction.id)).transaction;
  expect(stored).toMatchObject({ status: 'completed', counterpartyName: expect.any(String) });
  expect(payoutAnswerFromOutcome(outcome)).toEqual({ transaction: stored });
  const event = (await env.db.outboxEvent.findFirst({ where: { workspaceId } }))!;
  expect(event.event).toBe('transfer.completed');
  expect(event.payload).toEqual(stored);
});

test('payouts finished at once (one batched statement) each settle or release once; the wallet moves by their sum', async () => {
  const workspaceId = await funded('100');
  const opened = await Promise.all(Array.from({ length: 20 }, () => send(deps, workspaceId, '2')));
  const rows = await env.db.ledgerTransaction.findMany({ where: { id: { in: opened.map((o) => o.transaction.id) } }, orderBy: { id: 'asc' } });
  const outcomes = await Promise.all(
    rows.map((row, i) => applyRailResult(env.sql, row, { status: i % 4 === 0 ? 'failed' : 'completed', providerReference: null, raw: {} })),
  );
  expect(outcomes.filter((o) => o.kind === 'completed')).toHaveLength(15);
  expect(outcomes.filter((o) => o.kind === 'failed')).toHaveLength(5);
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '70.000000', pending: '0.000000', ledger: '70.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
  expect(await env.db.outboxEvent.count({ where: { workspaceId } })).toBe(20);
});

test('a finish Postgres refuses (a rail answer it cannot store) fails alone; the others finished with it settle once', async () => {
  const workspaceId = await funded('10');
  const opened = await Promise.all(Array.from({ length: 3 }, () => send(deps, workspaceId, '2')));
  const rows = await env.db.ledgerTransaction.findMany({ where: { id: { in: opened.map((o) => o.transaction.id) } }, orderBy: { id: 'asc' } });
  const outcomes = await Promise.allSettled(
    rows.map((row, i) => applyRailResult(env.sql, row, { status: 'completed', providerReference: null, raw: i === 1 ? { note: 'a\u0000b' } : {} })),
  );
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const after = await env.db.ledgerTransaction.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { id: 'asc' } });
  expect(after.map((r) => r.status)).toEqual(['completed', 'processing', 'completed']);
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '4.000000', pending: '2.000000', ledger: '6.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('two workers finishing payouts of the same two wallets at once: every payout settles once, both audits hold', async () => {
  const [a, b] = [await funded('100'), await funded('100')];
  const open = async (workspaceId: number) => {
    const opened = await Promise.all(Array.from({ length: 8 }, () => send(deps, workspaceId, '5')));
    return env.db.ledgerTransaction.findMany({ where: { id: { in: opened.map((o) => o.transaction.id) } } });
  };
  const [rowsA, rowsB] = [await open(a), await open(b)];
  // A second pool is a second worker: its batches run beside the first pool's.
  const other = createSqlPool({ databaseUrl: env.config.DATABASE_URL, poolSize: 2 });
  try {
    const completed = { status: 'completed' as const, providerReference: null, raw: {} };
    const outcomes = await Promise.all([
      ...rowsA
        .slice(0, 4)
        .concat(rowsB.slice(0, 4))
        .map((row) => applyRailResult(env.sql, row, completed)),
      ...rowsB
        .slice(4)
        .concat(rowsA.slice(4))
        .map((row) => applyRailResult(other, row, completed)),
    ]);
    expect(outcomes.every((o) => o.kind === 'completed')).toBe(true);
  } finally {
    await other.end();
  }
  for (const workspaceId of [a, b]) {
    const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
    expect(renderBalance(wallet)).toMatchObject({ available: '60.000000', pending: '0.000000', ledger: '60.000000' });
    expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
  }
});

test('payouts opened at once are held together in the order they came; the ones left out get the one-payout answer', async () => {
  const workspaceId = await funded('10');
  // One batch: 8 fits; 5 does not, and the running total leaves 2 out with it.
  // Both take the one-payout path at once: 2 fits there, 5 is refused with what
  // was available when it looked (2 before the 2 was held, 0 after).
  const results = await Promise.allSettled(['8', '5', '2'].map((amount) => send(deps, workspaceId, amount)));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
    code: 'invalid_request',
    message: expect.stringMatching(/^Exceeds balance: [02]\.000000 NGN$/),
  });
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '0.000000', pending: '10.000000', ledger: '10.000000' });
  const entries = await env.db.ledgerEntry.findMany({ where: { walletId: wallet.id, kind: 'hold' }, orderBy: { id: 'asc' } });
  expect(entries.map((e) => e.heldDelta.toFixed(2))).toEqual(['8.00', '2.00']);
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
});

test('one batch across workspaces: a repeated key opens one row, a missing wallet answers 404, each wallet holds only its own', async () => {
  const [a, b] = [await funded('20'), await funded('20')];
  await env.db.wallet.deleteMany({ where: { workspaceId: a, currency: 'EUR' } });
  const results = await Promise.allSettled([
    send(deps, a, '5', { idempotencyKey: 'same-key' }),
    send(deps, a, '5', { idempotencyKey: 'same-key' }),
    send(deps, b, '5', { idempotencyKey: 'same-key' }),
    send(deps, b, '15'),
    createTransfer(deps, { workspaceId: a, currency: 'EUR', amount: new Decimal('1'), accountNumber: '0123456789', bankCode: '058' }),
  ]);
  const [firstA, againA, onB, bigB, euro] = results;
  expect(firstA).toMatchObject({ status: 'fulfilled', value: { created: true } });
  expect(againA).toMatchObject({ status: 'fulfilled', value: { created: false } });
  expect((againA as PromiseFulfilledResult<{ transaction: { id: number } }>).value.transaction.id).toBe(
    (firstA as PromiseFulfilledResult<{ transaction: { id: number } }>).value.transaction.id,
  );
  expect(onB).toMatchObject({ status: 'fulfilled', value: { created: true } });
  expect(bigB).toMatchObject({ status: 'fulfilled', value: { created: true } });
  expect(euro).toMatchObject({ status: 'rejected', reason: { code: 'not_found' } });
  // Opened by one statement: one timestamp for the three rows.
  const opened = [firstA, onB, bigB].map((r) => (r as PromiseFulfilledResult<{ transaction: { createdAt: Date } }>).value.transaction.createdAt.getTime());
  expect(new Set(opened).size).toBe(1);
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId: a, idempotencyKey: 'same-key' } })).toBe(1);
  for (const [workspaceId, available] of [
    [a, '15.000000'],
    [b, '0.000000'],
  ] as const) {
    const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
    expect(renderBalance(wallet).available).toBe(available);
    expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
  }
});

test('payouts executed at once are taken up by one statement and each sent and settled once; one executed twice in that turn moves money once', async () => {
  const workspaceId = await funded('100');
  const opened = await Promise.all(Array.from({ length: 6 }, () => send(deps, workspaceId, '5')));
  const ids = opened.map((o) => o.transaction.id);
  const counting = countingStatements(env.sql);
  const run = (transactionId: number) => executePayout({ sql: counting.sql, rails: modeRails, transactionId, log: env.logger });
  const outcomes = await Promise.all([...ids, ids[0]!].map(run));
  // One take-up statement for the six, and the repeat's own (one payout's) after it.
  expect(counting.counts.get('cowrie-payout-take-up')).toBe(1);
  expect(counting.counts.get('cowrie-payout-take-up-one')).toBe(1);
  // The five asked for once settle from their own execution.
  expect(outcomes.slice(1, 6).map((o) => o.kind)).toEqual(Array(5).fill('completed'));
  // The one asked for twice: its two executions race to close it, and either
  // may win (the repeat asks the rail, which already holds the first send).
  // Exactly one settles it; the other changes nothing (it found the row final
  // at its take-up, or lost the close).
  const pair = [outcomes[0]!, outcomes[6]!];
  expect(pair.filter((o) => o.kind === 'completed')).toHaveLength(1);
  expect(pair.filter((o) => o.kind === 'skipped')).toHaveLength(1);
  expect(outcomes.filter((o) => o.kind === 'completed')).toHaveLength(6);
  const dispatches = await env.db.payoutDispatch.findMany({ where: { transactionId: { in: ids } } });
  expect(dispatches).toHaveLength(6);
  // The payout asked for twice counted two attempts, and its money moved once.
  expect(dispatches.find((d) => d.transactionId === ids[0])!.attempts).toBe(2);
  expect((await env.db.ledgerEntry.findMany({ where: { transactionId: ids[0] } })).map((e) => e.kind).sort()).toEqual(['hold', 'settle']);
  const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
  expect(renderBalance(wallet)).toMatchObject({ available: '70.000000', pending: '0.000000', ledger: '70.000000' });
  expect((await auditWallet(env.db, wallet.id)).consistent).toBe(true);
  expect(await env.db.outboxEvent.count({ where: { workspaceId } })).toBe(6);
});

test('opening a payout reads a few index pages to find an earlier one with its keys, however many payouts the workspace has made', async () => {
  const workspaceId = await funded('1000000');
  // Thousands of earlier payouts, and the planner's statistics of them.
  for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 100 }, (_, j) => send(deps, workspaceId, '1', { idempotencyKey: `many-${i}-${j}` })));
  await env.sql.query('ANALYZE "LedgerTransaction"');
  // One connection whose plans Postgres reports as they run (auto_explain), used as the payout's pool.
  const client = new Client({ connectionString: env.config.DATABASE_URL });
  await client.connect();
  const plans: Array<{ Plan: PlanNode }> = [];
  client.on('notice', (msg) => {
    const json = /plan:\s*(\{[\s\S]*\})\s*$/.exec(msg.message ?? '')?.[1];
    if (json) plans.push(JSON.parse(json) as { Plan: PlanNode });
  });
  try {
    await client.query(
      "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on; SET auto_explain.log_format = 'json'; SET client_min_messages = log",
    );
    const explained = { query: client.query.bind(client) } as unknown as PayoutDeps['sql'];
    const { created } = await send({ ...deps, sql: explained }, workspaceId, '1', {
      idempotencyKey: 'one-more',
      request: { key: 'one-more', requestHash: 'h' },
    });
    expect(created).toBe(true);
  } finally {
    await client.end();
  }
  // Pages the lookups of earlier payouts read (every scan of LedgerTransaction but the insert): two unique-index probes.
  const scans = plans
    .flatMap((p) => nodesOf(p.Plan))
    .filter((n) => n['Relation Name'] === 'LedgerTransaction' || n['Index Name']?.startsWith('LedgerTransaction_'));
  const pages = scans
    .filter((n) => n['Node Type'] !== 'ModifyTable')
    .reduce((sum, n) => sum + (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0), 0);
  expect(scans.length).toBeGreaterThan(0);
  expect(pages).toBeLessThan(30);
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe('the Idempotency-Key header after a definite failure (only successful responses are stored)', () => {
  const request = { key: 'retry-after-failure', requestHash: 'hash-of-the-request' };
  const sendWithKey = (workspaceId: number, accountNumber: string) =>
    createTransfer(deps, { workspaceId, currency: 'NGN', amount: new Decimal('10'), accountNumber, bankCode: '058', request });

  test('a payout the rail refused before accepting frees its key: the retry opens a new payout with a new reference', async () => {
    const workspaceId = await funded('100');
    const first = await sendWithKey(workspaceId, '0000000002');
    await expect(executePayout({ sql: env.sql, rails: modeRails, transactionId: first.transaction.id, log: env.logger })).resolves.toMatchObject({
      kind: 'provider_error',
    });
    const retry = await sendWithKey(workspaceId, '0000000002');
    expect(retry.created).toBe(true);
    expect(retry.transaction.id).not.toBe(first.transaction.id);
    expect(retry.transaction.reference).not.toBe(first.transaction.reference);
    expect(retry.transaction).toMatchObject({ status: 'processing', requestKey: request.key });
  });

  test('two concurrent retries after a definite failure open one new payout; both are answered with it', async () => {
    const workspaceId = await funded('100');
    const first = await sendWithKey(workspaceId, '0000000002');
    await executePayout({ sql: env.sql, rails: modeRails, transactionId: first.transaction.id, log: env.logger });
    const retries = await Promise.all(Array.from({ length: 6 }, () => sendWithKey(workspaceId, '0123456789')));
    expect(retries.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(retries.map((r) => r.transaction.id)).size).toBe(1);
    const wallet = (await findWallet(env.db, workspaceId, 'NGN'))!;
    expect(renderBalance(wallet)).toMatchObject({ available: '90.000000', pending: '10.000000' });
  });

  test('a payout still processing or completed keeps its key: the retry is answered with it and opens nothing', async () => {
    const workspaceId = await funded('100');
    const first = await sendWithKey(workspaceId, '0123456789');
    const whileProcessing = await sendWithKey(workspaceId, '0123456789');
    expect(whileProcessing).toMatchObject({ created: false, transaction: { id: first.transaction.id } });
    await executePayout({ sql: env.sql, rails: modeRails, transactionId: first.transaction.id, log: env.logger });
    const afterCompletion = await sendWithKey(workspaceId, '0123456789');
    expect(afterCompletion).toMatchObject({ created: false, transaction: { id: first.transaction.id, status: 'completed' } });
  });

  test('the body idempotency_key keeps the ledger rule: it answers the failed payout, whatever its status', async () => {
    const workspaceId = await funded('100');
    const withBothKeys = () =>
      createTransfer(deps, {
        workspaceId,
        currency: 'NGN',
        amount: new Decimal('10'),
        accountNumber: '0000000002',
        bankCode: '058',
        idempotencyKey: 'ledger-key-1',
        request,
      });
    const first = await withBothKeys();
    await executePayout({ sql: env.sql, rails: modeRails, transactionId: first.transaction.id, log: env.logger });
    const again = await withBothKeys();
    expect(again).toMatchObject({ created: false, transaction: { id: first.transaction.id, status: 'failed' } });
  });
});

test('payouts taken up one at a time are planned once per connection, not at every take-up', async () => {
  // One connection: its prepared statements and their plan counts are the session's (pg_prepared_statements).
  const sql = createSqlPool({ databaseUrl: env.config.DATABASE_URL, poolSize: 1 });
  try {
    const rails = createModeRails(env.config, { redis: env.redis, sql });
    // Tables of a ledger in use (plans are costed from their statistics): a
    // generic plan for an array of ids looked dearer than a one-payout plan.
    const workspaceId = await funded('2000');
    const earlier = await Promise.all(Array.from({ length: 1500 }, () => send(deps, workspaceId, '1')));
    await Promise.all(earlier.map(({ transaction }) => executePayout({ sql: env.sql, rails: modeRails, transactionId: transaction.id, log: env.logger })));
    await sql.query({ text: 'ANALYZE "LedgerTransaction", "PayoutDispatch", "PayoutAttempt"' });
    for (let i = 0; i < 8; i++) {
      const { transaction } = await send({ ...deps, sql, rails: rails.live }, workspaceId, '1');
      await expect(executePayout({ sql, rails, transactionId: transaction.id, log: env.logger })).resolves.toMatchObject({ kind: 'completed' });
    }
    const { rows } = await sql.query<{ generic: number; custom: number }>({
      text: `SELECT sum(generic_plans)::int AS "generic", sum(custom_plans)::int AS "custom" FROM pg_prepared_statements WHERE name LIKE 'cowrie-payout-take-up%'`,
    });
    // Postgres makes five custom plans before it weighs the generic one; after that, the generic plan (made once) serves.
    expect(rows[0]).toEqual({ generic: 3, custom: 5 });
  } finally {
    await sql.end();
  }
});

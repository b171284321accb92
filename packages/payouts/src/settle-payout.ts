import { batchPerTurnFor, inSqlTransaction, isSqlStatementRefused, utcTimestamp, type LedgerTransaction, type Prisma, type SqlPool, type SqlQueryable } from '@cowrie/db';
import type { TTransferResult } from '@cowrie/rails';
import { asObject, renderTransaction, type TRenderedTransaction } from './render';

/**
 * What the worker made of a payout; `skipped` when the row was not
 * `processing` any more. A final outcome carries the row as the API renders
 * it, committed: the gateway answers with it (the payouts job's result).
 * `unknown`: the rail may have the transfer and cannot say yet; the row stays
 * `processing` with its hold, and the API answers the rail's provider error.
 */
export type TPayoutOutcome =
  | { kind: 'completed'; transaction: TRenderedTransaction }
  | { kind: 'failed'; reason: string; transaction: TRenderedTransaction }
  | { kind: 'provider_error'; status: number; message: string; transaction: TRenderedTransaction }
  | { kind: 'unknown'; status: number; message: string; transaction: TRenderedTransaction }
  | { kind: 'pending' }
  | { kind: 'skipped'; status: string | null };

/**
 * When the rail is asked again about a payout it has not settled (an unknown
 * outcome, or a transfer it reported `pending`): after `firstCheckMs`, then
 * twice as long each time up to `maxCheckMs`; an unknown outcome the rail kept
 * not knowing for `graceMs` is failed (PAYOUT_UNKNOWN_* settings).
 */
export interface TOutcomeSchedule {
  firstCheckMs: number;
  maxCheckMs: number;
  graceMs: number;
}

/** The defaults of PAYOUT_UNKNOWN_FIRST_CHECK_MS, PAYOUT_UNKNOWN_MAX_CHECK_MS, PAYOUT_UNKNOWN_GRACE_MS. */
export const DEFAULT_OUTCOME_SCHEDULE: TOutcomeSchedule = { firstCheckMs: 5_000, maxCheckMs: 300_000, graceMs: 30 * 60_000 };

/** The delay before the check after `checks` checks were made: seconds first, then minutes. */
export function nextCheckDelayMs(schedule: TOutcomeSchedule, checks: number): number {
  return Math.min(schedule.maxCheckMs, schedule.firstCheckMs * 2 ** Math.min(checks, 30));
}

/** The message the API gives with a payout whose outcome is being confirmed. */
export const OUTCOME_UNKNOWN_MESSAGE = 'The rail has not confirmed this transfer yet: it stays processing, with its hold, until the rail says what happened';

interface Finish {
  status: 'completed' | 'failed';
  raw: Record<string, unknown>;
  providerReference?: string | null;
  accountName?: string | null;
  dispatch: { outcome: 'completed' | 'failed' | 'provider_error'; errorStatus?: number; errorMessage?: string };
}

/**
 * Payouts' ends as one statement, committed on its own, for every payout the
 * worker finishes in the same turn of its event loop. Per payout: the row
 * leaves `processing` (the gate: a racing finish waits for the row's lock,
 * then finds it final and changes nothing), its dispatch record, its
 * `transfer.*` outbox event, and its hold's close, a `settle` entry (balance
 * and pending drop) or a `release` entry (available rises again). The wallets
 * are locked last, in id order, and updated once each with the batch's sum;
 * their row locks are released by the commit that ends the statement: a hot
 * wallet is locked once per batch, never across a round trip.
 */
const FINISH_PAYOUTS = `
  WITH input AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::jsonb[], $11::text[])
      AS i("id", "status", "metadata", "providerReference", "accountName", "outcome", "errorStatus", "errorMessage", "event", "payload", "closing")
  ), finished AS (
    UPDATE "LedgerTransaction" t SET "status" = i."status", "metadata" = i."metadata", "providerReference" = COALESCE(i."providerReference", t."providerReference"),
      "counterpartyName" = COALESCE(t."counterpartyName", i."accountName"), "updatedAt" = $12
    FROM input i
    WHERE t."id" = i."id" AND t."status" = 'processing'
    RETURNING t."id", t."workspaceId"
  ), dispatch AS (
    INSERT INTO "PayoutDispatch" ("transactionId", "outcome", "errorStatus", "errorMessage", "createdAt", "updatedAt")
    SELECT i."id", i."outcome", i."errorStatus", i."errorMessage", $12, $12 FROM finished f JOIN input i ON i."id" = f."id"
    ON CONFLICT ("transactionId") DO UPDATE
      SET "outcome" = EXCLUDED."outcome", "errorStatus" = EXCLUDED."errorStatus", "errorMessage" = EXCLUDED."errorMessage", "updatedAt" = $12
  ), event AS (
    INSERT INTO "OutboxEvent" ("workspaceId", "event", "payload", "createdAt")
    SELECT f."workspaceId", i."event", i."payload", $12 FROM finished f JOIN input i ON i."id" = f."id"
  ), closing AS (
    INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta", "createdAt")
    SELECT h."walletId", h."transactionId", i."closing", CASE WHEN i."closing" = 'settle' THEN -h."heldDelta" ELSE 0 END, -h."heldDelta", $12
    FROM finished f JOIN input i ON i."id" = f."id" JOIN "LedgerEntry" h ON h."transactionId" = f."id" AND h."kind" = 'hold'
    RETURNING "walletId", "balanceDelta", "heldDelta"
  ), locked AS (
    -- In id order, so two batches touching the same wallets cannot deadlock.
    SELECT "id" FROM "Wallet" WHERE "id" IN (SELECT "walletId" FROM closing) ORDER BY "id" FOR UPDATE
  ), wallet AS (
    UPDATE "Wallet" w SET "balance" = w."balance" + d."balanceDelta", "held" = w."held" + d."heldDelta", "updatedAt" = $12
    FROM (SELECT "walletId", sum("balanceDelta") AS "balanceDelta", sum("heldDelta") AS "heldDelta" FROM closing GROUP BY "walletId") d
    JOIN locked l ON l."id" = d."walletId"
    WHERE w."id" = d."walletId"
  )
  SELECT "id" FROM finished`;

interface FinishRequest {
  row: LedgerTransaction;
  finish: Finish;
}

/** The row as FINISH_PAYOUTS leaves it, rendered: the event's payload and the worker's answer. */
function finishedRow(row: LedgerTransaction, f: Finish, metadata: Record<string, unknown>, now: Date) {
  return renderTransaction({
    ...row,
    status: f.status,
    metadata: metadata as Prisma.JsonObject,
    providerReference: f.providerReference || row.providerReference,
    counterpartyName: row.counterpartyName ?? (f.accountName || null),
    updatedAt: now,
  });
}

/**
 * FINISH_PAYOUTS for one batch. If Postgres refuses it (a value one rail
 * answer brought, say), nothing was written and each finish runs on its own,
 * so that payout fails alone; a lost connection fails the batch (it may have
 * committed, and the jobs' retries find their rows final).
 */
async function finishBatch(sql: SqlQueryable, requests: readonly FinishRequest[]): Promise<Array<TRenderedTransaction | null | Error>> {
  try {
    return await finishTogether(sql, requests);
  } catch (err) {
    if (!isSqlStatementRefused(err) || requests.length === 1) throw err;
    const alone: Array<TRenderedTransaction | null | Error> = [];
    for (const request of requests) alone.push(await finishTogether(sql, [request]).then(([answer]) => answer!, (e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
    return alone;
  }
}

async function finishTogether(sql: SqlQueryable, requests: readonly FinishRequest[]): Promise<Array<TRenderedTransaction | null>> {
  const now = new Date();
  // One payout at most once per statement: a second finish of the same row in
  // the batch loses, as it would a moment later.
  const seen = new Set<number>();
  const batch = requests.filter((r) => !seen.has(r.row.id) && seen.add(r.row.id));
  const prepared = batch.map(({ row, finish: f }) => {
    const metadata = { ...asObject(row.metadata), provider: row.provider, raw: f.raw };
    return { row, f, metadata, rendered: finishedRow(row, f, metadata, now) };
  });
  const { rows } = await sql.query<{ id: number }>({
    name: 'cowrie-finish-payouts',
    text: FINISH_PAYOUTS,
    values: [
      prepared.map((p) => p.row.id),
      prepared.map((p) => p.f.status),
      prepared.map((p) => JSON.stringify(p.metadata)),
      prepared.map((p) => p.f.providerReference || null),
      prepared.map((p) => p.f.accountName || null),
      prepared.map((p) => p.f.dispatch.outcome),
      prepared.map((p) => p.f.dispatch.errorStatus ?? null),
      prepared.map((p) => p.f.dispatch.errorMessage ?? null),
      prepared.map((p) => `transfer.${p.f.status}`),
      prepared.map((p) => JSON.stringify(p.rendered)),
      prepared.map((p) => (p.f.status === 'completed' ? 'settle' : 'release')),
      utcTimestamp(now),
    ],
  });
  const won = new Set(rows.map((r) => r.id));
  const answers = new Map(prepared.filter((p) => won.has(p.row.id)).map((p) => [p.row.id, p.rendered]));
  return requests.map((r) => (batch.includes(r) ? (answers.get(r.row.id) ?? null) : null));
}

// One batcher per pool, one batch at a time: the finishes a worker makes while
// the last batch commits go out together (they share the wallets' row locks).
const finishBatcher = batchPerTurnFor(finishBatch, { oneAtATime: true });

/**
 * Moves a `processing` payout to its final state (FINISH_PAYOUTS), batched
 * with the other finishes of this turn; resolves once that statement has
 * committed. Only the first caller wins: null for a row that was final.
 */
function finish(sql: SqlQueryable, row: LedgerTransaction, f: Finish): Promise<TRenderedTransaction | null> {
  return finishBatcher(sql).load({ row, finish: f });
}

/**
 * Records that the rail has not settled a payout yet, and when to ask it
 * again: `pending` (the rail has it and will finish it) or `unknown` (it may
 * have it and cannot say: the grace window runs from the first time). The row
 * stays `processing` with its hold; nothing is released.
 */
async function awaitOutcome(sql: SqlPool, row: LedgerTransaction, schedule: TOutcomeSchedule, wait: { outcome: 'pending' | 'unknown'; raw?: Record<string, unknown>; providerReference?: string | null; error?: { status: number; message: string } }) {
  const now = new Date();
  await inSqlTransaction(sql, async (client) => {
    if (wait.raw) {
      const metadata = { ...asObject(row.metadata), provider: row.provider, raw: wait.raw };
      await client.query({
        text: `UPDATE "LedgerTransaction" SET "metadata" = $2, "providerReference" = COALESCE($3, "providerReference"), "updatedAt" = $4
               WHERE "id" = $1 AND "status" = 'processing'`,
        values: [row.id, JSON.stringify(metadata), wait.providerReference || null, utcTimestamp(now)],
      });
    }
    // Seconds first, then minutes: the delay grows with the checks already made.
    const nextCheckAt = new Date(now.getTime() + nextCheckDelayMs(schedule, await checksSoFar(client, row.id)));
    await client.query({
      text: `INSERT INTO "PayoutDispatch" ("transactionId", "outcome", "errorStatus", "errorMessage", "unknownSince", "nextCheckAt", "checks", "createdAt", "updatedAt")
             VALUES ($1, $2, $3, $4, CASE WHEN $2 = 'unknown' THEN $5::timestamp END, $6, 1, $5, $5)
             ON CONFLICT ("transactionId") DO UPDATE SET "outcome" = $2,
               "errorStatus" = COALESCE($3, "PayoutDispatch"."errorStatus"), "errorMessage" = COALESCE($4, "PayoutDispatch"."errorMessage"),
               "unknownSince" = CASE WHEN $2 = 'unknown' THEN COALESCE("PayoutDispatch"."unknownSince", $5::timestamp) END,
               "nextCheckAt" = $6, "checks" = "PayoutDispatch"."checks" + 1, "updatedAt" = $5`,
      values: [row.id, wait.outcome, wait.error?.status ?? null, wait.error?.message ?? null, utcTimestamp(now), utcTimestamp(nextCheckAt)],
    });
  });
}

async function checksSoFar(sql: SqlQueryable, transactionId: number): Promise<number> {
  const { rows } = await sql.query<{ checks: number }>({ text: 'SELECT "checks" FROM "PayoutDispatch" WHERE "transactionId" = $1', values: [transactionId] });
  return rows[0]?.checks ?? 0;
}

/**
 * The rail may have the transfer and cannot say: the row stays `processing`,
 * with its hold, until it does. `error` is the rail's failure the API answers
 * with (kept from the first time when a re-check has none of its own).
 */
export async function awaitUnknownOutcome(sql: SqlPool, row: LedgerTransaction, schedule: TOutcomeSchedule, error?: { status: number; message: string }): Promise<TPayoutOutcome> {
  await awaitOutcome(sql, row, schedule, { outcome: 'unknown', error });
  return { kind: 'unknown', status: error?.status ?? 504, message: error?.message ?? OUTCOME_UNKNOWN_MESSAGE, transaction: renderTransaction(row) };
}

/**
 * The rail kept not knowing the reference for the whole grace window: nothing
 * was sent, so the payout fails and its hold is released (transfer.failed).
 */
export async function failUnconfirmed(sql: SqlPool, row: LedgerTransaction, since: Date): Promise<TPayoutOutcome> {
  const reason = `The rail never received this transfer (it did not know its reference from ${since.toISOString()} on)`;
  const won = await finish(sql, row, { status: 'failed', raw: { error: reason }, dispatch: { outcome: 'failed', errorMessage: reason } });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'failed', reason, transaction: won };
}

/** Applies what the rail said: completed → settle; failed → release; pending → ask again later (`schedule`). */
export async function applyRailResult(sql: SqlPool, row: LedgerTransaction, result: TTransferResult, schedule: TOutcomeSchedule = DEFAULT_OUTCOME_SCHEDULE): Promise<TPayoutOutcome> {
  if (result.status === 'pending') {
    await awaitOutcome(sql, row, schedule, { outcome: 'pending', raw: result.raw, providerReference: result.providerReference });
    return { kind: 'pending' };
  }
  const reason = result.reason ?? 'The payout rail reported a failure';
  const won = await finish(sql, row, {
    status: result.status,
    raw: result.raw,
    providerReference: result.providerReference,
    accountName: result.accountName,
    dispatch: result.status === 'completed' ? { outcome: 'completed' } : { outcome: 'failed', errorMessage: reason },
  });
  if (!won) return { kind: 'skipped', status: null };
  return result.status === 'completed' ? { kind: 'completed', transaction: won } : { kind: 'failed', reason, transaction: won };
}

/** The rail threw and certainly sent nothing: the row fails, the hold is released, the error is kept for the API. */
export async function failWithProviderError(sql: SqlPool, row: LedgerTransaction, error: { status: number; message: string; raw?: Record<string, unknown> }): Promise<TPayoutOutcome> {
  const won = await finish(sql, row, {
    status: 'failed',
    raw: error.raw ?? { error: error.message },
    dispatch: { outcome: 'provider_error', errorStatus: error.status, errorMessage: error.message },
  });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'provider_error', status: error.status, message: error.message, transaction: won };
}

import { asObject } from '@cowrie/core';
import { columnList, defineStatement, inSqlTransaction, sqlParam, type LedgerTransaction, type Prisma, type SqlPool, type SqlQueryable } from '@cowrie/db';
import { closeHeldDebit, ledgerTransactionColumns, newReversalReference, reverseSettledDebit } from '@cowrie/ledger';
import type { TransferResult } from '@cowrie/rails';
import { payoutDispatchColumns } from './payout-dispatch-columns';
import { renderTransaction, type RenderedTransaction } from './render';

/**
 * What the worker made of a payout; `skipped` when the row was not
 * `processing` any more. A final outcome carries the row as the API renders
 * it, committed: the gateway answers with it (the payouts job's result).
 * `unknown`: the rail may have the transfer and cannot say yet; the row stays
 * `processing` with its hold, and the API answers the rail's provider error.
 */
export type PayoutOutcome =
  | { kind: 'completed'; transaction: RenderedTransaction }
  | { kind: 'failed'; reason: string; transaction: RenderedTransaction }
  | { kind: 'reversed'; transaction: RenderedTransaction }
  | { kind: 'provider_error'; status: number; message: string; transaction: RenderedTransaction }
  | { kind: 'unknown'; status: number; message: string; transaction: RenderedTransaction }
  | { kind: 'pending' }
  | { kind: 'skipped'; status: string | null };

/**
 * When the rail is asked again about a payout it has not settled (an unknown
 * outcome, or a transfer it reported `pending`): after `firstCheckMs`, then
 * twice as long each time up to `maxCheckMs`; an unknown outcome the rail kept
 * not knowing for `graceMs` is failed (PAYOUT_UNKNOWN_* settings).
 */
export interface OutcomeSchedule {
  firstCheckMs: number;
  maxCheckMs: number;
  graceMs: number;
  /**
   * The reversal watch: a completed payout is asked about `reversalFirstCheckMs`
   * after it was sent, then twice as long each time, up to `reversalWatchMs`
   * after it settled (PAYOUT_REVERSAL_FIRST_CHECK_MS, PAYOUT_REVERSAL_WATCH_HOURS).
   */
  reversalFirstCheckMs: number;
  reversalWatchMs: number;
}

/** The defaults of PAYOUT_UNKNOWN_FIRST_CHECK_MS, PAYOUT_UNKNOWN_MAX_CHECK_MS, PAYOUT_UNKNOWN_GRACE_MS, PAYOUT_REVERSAL_*. */
export const DEFAULT_OUTCOME_SCHEDULE: OutcomeSchedule = {
  firstCheckMs: 5_000,
  maxCheckMs: 300_000,
  graceMs: 30 * 60_000,
  reversalFirstCheckMs: 15 * 60_000,
  reversalWatchMs: 72 * 3_600_000,
};

/** The delay before the check after `checks` checks were made: seconds first, then minutes. */
export function nextCheckDelayMs(schedule: OutcomeSchedule, checks: number): number {
  return Math.min(schedule.maxCheckMs, schedule.firstCheckMs * 2 ** Math.min(checks, 30));
}

/** The message the API gives with a payout whose outcome is being confirmed. */
export const OUTCOME_UNKNOWN_MESSAGE = 'The rail has not confirmed this transfer yet: it stays processing, with its hold, until the rail says what happened';

interface Finish {
  status: 'completed' | 'failed';
  raw: Record<string, unknown>;
  providerReference?: string | null;
  accountName?: string | null;
}

/**
 * Closes a `processing` payout through the ledger (closeHeldDebit: the row,
 * its `transfer.*` event and its hold's settle or release, one statement,
 * batched with the other closes of this turn); resolves once it committed.
 * Only the first caller wins: null for a row that was final already.
 */
async function finish(sql: SqlQueryable, row: LedgerTransaction, f: Finish): Promise<RenderedTransaction | null> {
  const metadata = { ...asObject(row.metadata), provider: row.provider, raw: f.raw };
  const at = new Date();
  const rendered = renderTransaction({
    ...row,
    status: f.status,
    metadata: metadata as Prisma.JsonObject,
    providerReference: f.providerReference || row.providerReference,
    counterpartyName: row.counterpartyName ?? (f.accountName || null),
    updatedAt: at,
  });
  const won = await closeHeldDebit(sql, {
    transactionId: row.id,
    status: f.status,
    metadata,
    providerReference: f.providerReference ?? null,
    accountName: f.accountName ?? null,
    event: { name: `transfer.${f.status}`, payload: rendered },
    at,
  });
  return won ? rendered : null;
}

/** What the rail said of a payout it has not settled, on its still `processing` row. */
const KEEP_RAIL_ANSWER = defineStatement({
  name: 'cowrie-payout-keep-rail-answer',
  params: { transactionId: sqlParam.int, metadata: sqlParam.json, providerReference: sqlParam.text.orNull, now: sqlParam.timestamp },
  text: (
    p,
  ) => `UPDATE "LedgerTransaction" SET "metadata" = ${p.metadata}, "providerReference" = COALESCE(${p.providerReference}, "providerReference"), "updatedAt" = ${p.now}
               WHERE "id" = ${p.transactionId} AND "status" = 'processing'`,
});

/** The awaited outcome and the next check; `unknownSince` is kept from the first unknown. */
const AWAIT_OUTCOME = defineStatement({
  name: 'cowrie-payout-await-outcome',
  params: {
    transactionId: sqlParam.int,
    outcome: sqlParam.text,
    errorStatus: sqlParam.int.orNull,
    errorMessage: sqlParam.text.orNull,
    now: sqlParam.timestamp,
    nextCheckAt: sqlParam.timestamp,
  },
  text: (
    p,
  ) => `INSERT INTO "PayoutDispatch" ("transactionId", "outcome", "errorStatus", "errorMessage", "unknownSince", "nextCheckAt", "checks", "createdAt", "updatedAt")
             VALUES (${p.transactionId}, ${p.outcome}, ${p.errorStatus}, ${p.errorMessage}, CASE WHEN ${p.outcome} = 'unknown' THEN ${p.now}::timestamp END, ${p.nextCheckAt}, 1, ${p.now}, ${p.now})
             ON CONFLICT ("transactionId") DO UPDATE SET "outcome" = ${p.outcome},
               "errorStatus" = COALESCE(${p.errorStatus}, "PayoutDispatch"."errorStatus"), "errorMessage" = COALESCE(${p.errorMessage}, "PayoutDispatch"."errorMessage"),
               "unknownSince" = CASE WHEN ${p.outcome} = 'unknown' THEN COALESCE("PayoutDispatch"."unknownSince", ${p.now}::timestamp) END,
               "nextCheckAt" = ${p.nextCheckAt}, "checks" = "PayoutDispatch"."checks" + 1, "updatedAt" = ${p.now}`,
});

const CHECKS_SO_FAR = defineStatement({
  name: 'cowrie-payout-checks',
  params: { transactionId: sqlParam.int },
  text: (p) => `SELECT "checks" FROM "PayoutDispatch" WHERE "transactionId" = ${p.transactionId}`,
  result: { checks: payoutDispatchColumns.checks },
});

/**
 * Records that the rail has not settled a payout yet, and when to ask it
 * again: `pending` (the rail has it and will finish it) or `unknown` (it may
 * have it and cannot say: the grace window runs from the first time). The row
 * stays `processing` with its hold; nothing is released.
 */
async function awaitOutcome(
  sql: SqlPool,
  row: LedgerTransaction,
  schedule: OutcomeSchedule,
  wait: { outcome: 'pending' | 'unknown'; raw?: Record<string, unknown>; providerReference?: string | null; error?: { status: number; message: string } },
) {
  const now = new Date();
  await inSqlTransaction(sql, async (client) => {
    if (wait.raw) {
      const metadata = { ...asObject(row.metadata), provider: row.provider, raw: wait.raw };
      await KEEP_RAIL_ANSWER.run(client, { transactionId: row.id, metadata, providerReference: wait.providerReference || null, now });
    }
    // Seconds first, then minutes: the delay grows with the checks already made.
    const nextCheckAt = new Date(now.getTime() + nextCheckDelayMs(schedule, await checksSoFar(client, row.id)));
    await AWAIT_OUTCOME.run(client, {
      transactionId: row.id,
      outcome: wait.outcome,
      errorStatus: wait.error?.status ?? null,
      errorMessage: wait.error?.message ?? null,
      now,
      nextCheckAt,
    });
  });
}

async function checksSoFar(sql: SqlQueryable, transactionId: number): Promise<number> {
  const { rows } = await CHECKS_SO_FAR.run(sql, { transactionId });
  return rows[0]?.checks ?? 0;
}

/** The rail's error the API answers a failed payout with (readPayoutAnswer), kept before the row fails. */
const KEEP_PROVIDER_ERROR = defineStatement({
  name: 'cowrie-payout-provider-error',
  params: { transactionId: sqlParam.int, errorStatus: sqlParam.int, errorMessage: sqlParam.text, now: sqlParam.timestamp },
  text: (p) => `INSERT INTO "PayoutDispatch" ("transactionId", "outcome", "errorStatus", "errorMessage", "createdAt", "updatedAt")
           VALUES (${p.transactionId}, 'provider_error', ${p.errorStatus}, ${p.errorMessage}, ${p.now}, ${p.now})
           ON CONFLICT ("transactionId") DO UPDATE SET "outcome" = 'provider_error', "errorStatus" = ${p.errorStatus}, "errorMessage" = ${p.errorMessage}, "updatedAt" = ${p.now}`,
});

/**
 * The rail may have the transfer and cannot say: the row stays `processing`,
 * with its hold, until it does. `error` is the rail's failure the API answers
 * with (kept from the first time when a re-check has none of its own).
 */
export async function awaitUnknownOutcome(
  sql: SqlPool,
  row: LedgerTransaction,
  schedule: OutcomeSchedule,
  error?: { status: number; message: string },
): Promise<PayoutOutcome> {
  await awaitOutcome(sql, row, schedule, { outcome: 'unknown', error });
  return { kind: 'unknown', status: error?.status ?? 504, message: error?.message ?? OUTCOME_UNKNOWN_MESSAGE, transaction: renderTransaction(row) };
}

/**
 * The rail kept not knowing the reference for the whole grace window: nothing
 * was sent, so the payout fails and its hold is released (transfer.failed).
 */
export async function failUnconfirmed(sql: SqlPool, row: LedgerTransaction, since: Date): Promise<PayoutOutcome> {
  const reason = `The rail never received this transfer (it did not know its reference from ${since.toISOString()} on)`;
  const won = await finish(sql, row, { status: 'failed', raw: { error: reason } });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'failed', reason, transaction: won };
}

const CURRENT_ROW = defineStatement({
  name: 'cowrie-payout-current-row',
  params: { id: sqlParam.int },
  text: (p) => `SELECT ${columnList(ledgerTransactionColumns)} FROM "LedgerTransaction" WHERE "id" = ${p.id}`,
  result: ledgerTransactionColumns,
});

/** Why a payout the bank returned before it settled failed. */
const RETURNED_BEFORE_SETTLED = 'The bank returned the transfer (reversed) before it settled';

/**
 * The rail reports the transfer reversed: the bank returned money that had
 * left. A payout still `processing` fails with its hold released (no credit:
 * the money never left the wallet's balance), with `transfer.failed`. A
 * `completed` one becomes `reversed` and the wallet gets its amount and fees
 * back exactly once, through the ledger (reverseSettledDebit: a compensating
 * `reversal` credit naming the payout), with one `transfer.reversed` event
 * carrying the payout as it now is. Anything else (failed, reversed already)
 * changes nothing.
 */
async function applyReversal(sql: SqlPool, row: LedgerTransaction, result: TransferResult): Promise<PayoutOutcome> {
  if (row.status === 'processing') {
    const won = await finish(sql, row, { status: 'failed', raw: result.raw, providerReference: result.providerReference, accountName: result.accountName });
    if (won) return { kind: 'failed', reason: RETURNED_BEFORE_SETTLED, transaction: won };
  }
  // Settled meanwhile, or settled when asked: read it as it is now.
  const current = (await CURRENT_ROW.run(sql, { id: row.id })).rows[0];
  if (!current || current.status !== 'completed') return { kind: 'skipped', status: current?.status ?? null };
  const creditReference = newReversalReference();
  const metadata = { ...asObject(current.metadata), provider: current.provider, raw: result.raw, reversed_by: creditReference };
  const at = new Date();
  const rendered = renderTransaction({ ...current, status: 'reversed', metadata: metadata as Prisma.JsonObject, updatedAt: at });
  const reversed = await reverseSettledDebit(sql, {
    transactionId: current.id,
    creditReference,
    metadata,
    event: { name: 'transfer.reversed', payload: rendered },
    at,
  });
  if (!reversed) return { kind: 'skipped', status: null };
  return { kind: 'reversed', transaction: rendered };
}

/**
 * Applies what the rail said: completed → settle; failed → release; pending →
 * ask again later (`schedule`); reversed → applyReversal. The row may have
 * settled since it was read: only the first close of each kind wins.
 */
export async function applyRailResult(
  sql: SqlPool,
  row: LedgerTransaction,
  result: TransferResult,
  schedule: OutcomeSchedule = DEFAULT_OUTCOME_SCHEDULE,
): Promise<PayoutOutcome> {
  if (result.status === 'reversed') return applyReversal(sql, row, result);
  if (result.status === 'pending') {
    await awaitOutcome(sql, row, schedule, { outcome: 'pending', raw: result.raw, providerReference: result.providerReference });
    return { kind: 'pending' };
  }
  const reason = result.reason ?? 'The payout rail reported a failure';
  const won = await finish(sql, row, { status: result.status, raw: result.raw, providerReference: result.providerReference, accountName: result.accountName });
  if (!won) return { kind: 'skipped', status: null };
  return result.status === 'completed' ? { kind: 'completed', transaction: won } : { kind: 'failed', reason, transaction: won };
}

/** The rail threw and certainly sent nothing: the row fails, the hold is released, the error is kept for the API. */
export async function failWithProviderError(
  sql: SqlPool,
  row: LedgerTransaction,
  error: { status: number; message: string; raw?: Record<string, unknown> },
): Promise<PayoutOutcome> {
  // The error the API answers with is on record before the row fails: a replay reads it (readPayoutAnswer).
  await KEEP_PROVIDER_ERROR.run(sql, { transactionId: row.id, errorStatus: error.status, errorMessage: error.message, now: new Date() });
  const won = await finish(sql, row, { status: 'failed', raw: error.raw ?? { error: error.message } });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'provider_error', status: error.status, message: error.message, transaction: won };
}

import { asObject, type Logger } from '@cowrie/core';
import {
  columnList,
  defineStatement,
  insertColumns,
  inSqlTransaction,
  sqlColumn,
  sqlParam,
  type LedgerTransaction,
  type PayoutDispatch,
  type Prisma,
  type SqlPool,
  type SqlQueryable,
} from '@cowrie/db';
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
  /** Awaiting the rail; `lostByRail` when the rail did not find a transfer it had acknowledged (kept processing; an operator's alert). */
  | { kind: 'pending'; lostByRail?: true }
  /** Not applied; `found` when the answer was one a rail the payout left or failed on should not give (kept for an operator). */
  | { kind: 'skipped'; status: string | null; found?: FoundOnRail };

/** A rail's answer kept on its attempt because the payout had moved on (found_after_move) or failed (found_after_fail). */
export type FoundLate = typeof FOUND_AFTER_MOVE | typeof FOUND_AFTER_FAIL;

/** Which rail's answer was kept, and as what: counted in cowrie_payout_found_after_move_total / _fail_total by whoever got it. */
export interface FoundOnRail {
  rail: string;
  outcome: FoundLate;
}

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

/*
 * Every write below is made from one rail's answer, and `row.provider` names
 * that rail (the row as the caller read it before asking). Each is gated on
 * the payout still being `processing` on that rail: once it has moved to the
 * next rail of its route, a late answer from the one it left (a stalled
 * worker's, a notification's) never settles, fails, keeps or awaits anything
 * on the payout. A rail appears once in a route and a payout only moves
 * forward, so the rail names the attempt, and its reference, exactly.
 */

/**
 * Closes a `processing` payout through the ledger (closeHeldDebit: the row,
 * its `transfer.*` event and its hold's settle or release, one statement,
 * batched with the other closes of this turn); resolves once it committed.
 * Only the first caller wins: null for a row that was final already, or that
 * has moved off the rail that answered.
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
    provider: row.provider,
    event: { name: `transfer.${f.status}`, payload: rendered },
    at,
  });
  return won ? rendered : null;
}

/** What the rail said of a payout it has not settled, on its row while it is still `processing` on that rail. */
const KEEP_RAIL_ANSWER = defineStatement({
  name: 'cowrie-payout-keep-rail-answer',
  params: {
    transactionId: sqlParam.int,
    rail: sqlParam.text,
    metadata: sqlParam.json,
    providerReference: sqlParam.text.orNull,
    now: sqlParam.timestamp,
  },
  text: (
    p,
  ) => `UPDATE "LedgerTransaction" SET "metadata" = ${p.metadata}, "providerReference" = COALESCE(${p.providerReference}, "providerReference"), "updatedAt" = ${p.now}
               WHERE "id" = ${p.transactionId} AND "status" = 'processing' AND "provider" = ${p.rail}`,
});

/**
 * The row's lock, while the payout is `processing` on the rail that answered:
 * a move to the next rail (FAIL_OVER) or a close racing the write waits, or
 * is waited for and then seen, so an answer from a rail the payout left
 * writes nothing.
 */
const onRail = (id: string, rail: string) =>
  `SELECT "id" FROM "LedgerTransaction" WHERE "id" = ${id} AND "type" = 'debit' AND "status" = 'processing' AND "provider" = ${rail} FOR UPDATE`;

/** The awaited outcome and the next check; `unknownSince` is kept from the first unknown. Nothing once the payout left the rail. */
const AWAIT_OUTCOME = defineStatement({
  name: 'cowrie-payout-await-outcome',
  params: {
    transactionId: sqlParam.int,
    rail: sqlParam.text,
    outcome: sqlParam.text,
    errorStatus: sqlParam.int.orNull,
    errorMessage: sqlParam.text.orNull,
    now: sqlParam.timestamp,
    nextCheckAt: sqlParam.timestamp,
  },
  text: (p) => `WITH payout AS (${onRail(p.transactionId, p.rail)})
             INSERT INTO "PayoutDispatch" (${insertColumns<PayoutDispatch>()('transactionId', 'outcome', 'errorStatus', 'errorMessage', 'unknownSince', 'nextCheckAt', 'checks', 'createdAt', 'updatedAt')})
             SELECT payout."id", ${p.outcome}::text, ${p.errorStatus}::int, ${p.errorMessage}::text, CASE WHEN ${p.outcome} = 'unknown' THEN ${p.now}::timestamp END,
               ${p.nextCheckAt}::timestamp, 1, ${p.now}::timestamp, ${p.now}::timestamp FROM payout
             ON CONFLICT ("transactionId") DO UPDATE SET "outcome" = ${p.outcome},
               "errorStatus" = COALESCE(${p.errorStatus}, "PayoutDispatch"."errorStatus"), "errorMessage" = COALESCE(${p.errorMessage}, "PayoutDispatch"."errorMessage"),
               "unknownSince" = CASE WHEN ${p.outcome} = 'unknown' THEN COALESCE("PayoutDispatch"."unknownSince", ${p.now}::timestamp) END,
               "nextCheckAt" = ${p.nextCheckAt}, "checks" = "PayoutDispatch"."checks" + 1, "updatedAt" = ${p.now}
             RETURNING "transactionId"`,
  result: { transactionId: payoutDispatchColumns.transactionId },
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
 * stays `processing` with its hold; nothing is released. False when the
 * payout is no longer `processing` on that rail: nothing was written.
 */
async function awaitOutcome(
  sql: SqlPool,
  row: LedgerTransaction,
  schedule: OutcomeSchedule,
  wait: { outcome: 'pending' | 'unknown'; raw?: Record<string, unknown>; providerReference?: string | null; error?: { status: number; message: string } },
): Promise<boolean> {
  const now = new Date();
  return inSqlTransaction(sql, async (client) => {
    // Seconds first, then minutes: the delay grows with the checks already made.
    const nextCheckAt = new Date(now.getTime() + nextCheckDelayMs(schedule, await checksSoFar(client, row.id)));
    const { rows } = await AWAIT_OUTCOME.run(client, {
      transactionId: row.id,
      rail: row.provider,
      outcome: wait.outcome,
      errorStatus: wait.error?.status ?? null,
      errorMessage: wait.error?.message ?? null,
      now,
      nextCheckAt,
    });
    if (!rows.length) return false;
    if (wait.raw) {
      const metadata = { ...asObject(row.metadata), provider: row.provider, raw: wait.raw };
      await KEEP_RAIL_ANSWER.run(client, { transactionId: row.id, rail: row.provider, metadata, providerReference: wait.providerReference || null, now });
    }
    return true;
  });
}

/**
 * The outcome of a rail's attempt when that rail, asked after the payout
 * moved on, shows the transfer (pending, paid or reversed): the payout may
 * have been paid twice. Never applied to the payout or its money: an
 * operator settles it with the rail (docs/money-safety.md).
 */
export const FOUND_AFTER_MOVE = 'found_after_move';

/**
 * The outcome of a rail's attempt when that rail shows the transfer (pending,
 * paid) after the payout failed on it (the grace window of "not found", or a
 * rail that answered one thing and then another): the money may have left
 * while the wallet got it back. Never applied (failed is final): an operator
 * settles it with the rail, as FOUND_AFTER_MOVE.
 */
export const FOUND_AFTER_FAIL = 'found_after_fail';

/**
 * The attempt of a payout failed because its rail never knew the reference
 * for the whole grace window (failUnconfirmed): its rail is asked once more,
 * a grace window later, whether it holds the transfer after all
 * (checkEarlierAttempts).
 */
export const UNCONFIRMED = 'unconfirmed';

/**
 * A rail's answer about a payout that has moved to another rail or has failed,
 * kept on that rail's attempt (never on the payout): its outcome says which,
 * its reason the latest answer. The attempt's rail has answered, so it is
 * marked asked (`checkedAt`: checkEarlierAttempts does not ask it again).
 * `before` is the attempt's outcome as this statement found it (the row is
 * locked first, so of two concurrent keeps exactly one finds it not yet kept).
 */
const KEEP_UNAPPLIED_RAIL_ANSWER = defineStatement({
  name: 'cowrie-payout-keep-unapplied-rail-answer',
  params: { transactionId: sqlParam.int, rail: sqlParam.text, answer: sqlParam.text, now: sqlParam.timestamp },
  text: (p) => `WITH prev AS (
             SELECT e."outcome" FROM "PayoutAttempt" e WHERE e."transactionId" = ${p.transactionId} AND e."rail" = ${p.rail} FOR UPDATE
           )
           UPDATE "PayoutAttempt" a
           SET "outcome" = CASE WHEN t."provider" <> a."rail" THEN '${FOUND_AFTER_MOVE}' ELSE '${FOUND_AFTER_FAIL}' END,
               "reason" = ${p.answer} || CASE WHEN t."provider" <> a."rail" THEN ' after the payout moved to another rail' ELSE ' after the payout failed' END,
               "checkedAt" = COALESCE(a."checkedAt", ${p.now}),
               "updatedAt" = ${p.now}
           FROM "LedgerTransaction" t, prev
           WHERE a."transactionId" = ${p.transactionId} AND a."rail" = ${p.rail} AND t."id" = a."transactionId"
             AND (t."provider" <> a."rail" OR t."status" = 'failed')
           RETURNING a."transactionId", a."outcome", prev."outcome" AS "before"`,
  result: { transactionId: payoutDispatchColumns.transactionId, outcome: sqlColumn.text, before: sqlColumn.text },
});

/**
 * A rail's answer that could not be applied because the payout has left that
 * rail or has failed: a `failed` one is what moving on (or failing) assumed and
 * changes nothing; any other means the rail holds the transfer, so it is kept
 * on the rail's attempt (FOUND_AFTER_MOVE or FOUND_AFTER_FAIL). The first time
 * an attempt is kept it is logged as an error and its outcome returned (to be
 * counted once per attempt); a later answer of the same rail (a repeated
 * notification, a stale worker) updates the reason, is logged as a warning and
 * returns null, as when nothing was kept.
 */
export async function keepUnappliedRailAnswer(
  sql: SqlQueryable,
  payout: { id: number; reference: string },
  rail: string,
  result: TransferResult,
  log?: Logger,
): Promise<FoundLate | null> {
  if (result.status === 'failed') return null;
  const answer = `${rail} answered ${result.status}${result.providerReference ? ` (${result.providerReference})` : ''}`;
  const { rows } = await KEEP_UNAPPLIED_RAIL_ANSWER.run(sql, { transactionId: payout.id, rail, answer, now: new Date() });
  const kept = rows[0]?.outcome;
  if (kept !== FOUND_AFTER_MOVE && kept !== FOUND_AFTER_FAIL) return null;
  const context = { reference: payout.reference, rail, status: result.status, providerReference: result.providerReference, outcome: kept };
  if (rows[0]!.before === FOUND_AFTER_MOVE || rows[0]!.before === FOUND_AFTER_FAIL) {
    log?.warn(context, 'a rail answered again about a transfer already kept on its attempt for an operator; nothing moved');
    return null;
  }
  log?.error(
    context,
    kept === FOUND_AFTER_MOVE
      ? 'a rail the payout left holds its transfer: it may be paid twice; nothing moved, kept on its attempt for an operator'
      : 'the rail holds the transfer of a payout that failed (its hold was released): it may be paid while the wallet got the money back; nothing moved, kept on its attempt for an operator',
  );
  return kept;
}

/**
 * Asks the payout's rail, now, what it holds of the transfer (verify by
 * reference): null when it does not show it. Given by a caller whose answer
 * may be older than the payout's state (the transfer call's own answer, which
 * a reversal notification can overtake while the call is out).
 */
export type AskRailNow = () => Promise<TransferResult | null | undefined>;

/**
 * An answer whose write lost its gate: kept when it came from a rail the
 * payout left or failed on; skipped either way. With `askNow`, an answer that
 * would be kept on a payout that failed on this very rail is checked first:
 * one the rail now contradicts (it shows the transfer failed or returned) was
 * overtaken, not a transfer held after the failure, and is not kept; one the
 * rail cannot be asked about, or does not show yet (a lagging lookup), is
 * kept as it is, for an operator to look at.
 */
async function notApplied(sql: SqlQueryable, row: LedgerTransaction, result: TransferResult, log?: Logger, askNow?: AskRailNow): Promise<PayoutOutcome> {
  let answer = result;
  if (askNow && result.status !== 'failed') {
    const current = (await CURRENT_ROW.run(sql, { id: row.id })).rows[0];
    if (current?.status === 'failed' && current.provider === row.provider) {
      const now = await askNow().catch(() => undefined);
      if (now?.status === 'failed' || now?.status === 'reversed') {
        log?.info(
          { reference: row.reference, answered: result.status, now: now.status },
          'a rail answer overtaken by the payout’s failure (the rail now says otherwise): not kept',
        );
        return { kind: 'skipped', status: null };
      }
      if (now) answer = now;
    }
  }
  const kept = await keepUnappliedRailAnswer(sql, row, row.provider, answer, log);
  return kept ? { kind: 'skipped', status: null, found: { rail: row.provider, outcome: kept } } : { kind: 'skipped', status: null };
}

async function checksSoFar(sql: SqlQueryable, transactionId: number): Promise<number> {
  const { rows } = await CHECKS_SO_FAR.run(sql, { transactionId });
  return rows[0]?.checks ?? 0;
}

/** The rail's error the API answers a failed payout with (readPayoutAnswer), kept before the row fails, while it is on that rail. */
const KEEP_PROVIDER_ERROR = defineStatement({
  name: 'cowrie-payout-provider-error',
  params: { transactionId: sqlParam.int, rail: sqlParam.text, errorStatus: sqlParam.int, errorMessage: sqlParam.text, now: sqlParam.timestamp },
  text: (p) => `WITH payout AS (${onRail(p.transactionId, p.rail)})
           INSERT INTO "PayoutDispatch" (${insertColumns<PayoutDispatch>()('transactionId', 'outcome', 'errorStatus', 'errorMessage', 'createdAt', 'updatedAt')})
           SELECT payout."id", 'provider_error', ${p.errorStatus}::int, ${p.errorMessage}::text, ${p.now}::timestamp, ${p.now}::timestamp FROM payout
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
  if (!(await awaitOutcome(sql, row, schedule, { outcome: 'unknown', error }))) return { kind: 'skipped', status: null };
  return { kind: 'unknown', status: error?.status ?? 504, message: error?.message ?? OUTCOME_UNKNOWN_MESSAGE, transaction: renderTransaction(row) };
}

/**
 * The rail acknowledged the transfer (it answered `pending`, or gave its own
 * reference) and now cannot say, or does not find it: it is still the rail's.
 * The row stays `processing` with its hold, awaiting `pending` (the grace
 * window of "not found" never starts), and is asked again on the schedule.
 * `notFound`: the rail answered that it does not know it (`lostByRail`, counted
 * by the payout worker in cowrie_payouts_lost_by_rail_total).
 */
export async function awaitAcknowledgedOutcome(sql: SqlPool, row: LedgerTransaction, schedule: OutcomeSchedule, notFound = false): Promise<PayoutOutcome> {
  if (!(await awaitOutcome(sql, row, schedule, { outcome: 'pending' }))) return { kind: 'skipped', status: null };
  return notFound ? { kind: 'pending', lostByRail: true } : { kind: 'pending' };
}

/** The attempt of a payout failed by the grace window on its rail, while it still reads `sending`. */
const MARK_UNCONFIRMED = defineStatement({
  name: 'cowrie-payout-attempt-unconfirmed',
  params: { transactionId: sqlParam.int, rail: sqlParam.text, reason: sqlParam.text, now: sqlParam.timestamp },
  text: (p) => `UPDATE "PayoutAttempt" a SET "outcome" = '${UNCONFIRMED}', "reason" = ${p.reason}, "updatedAt" = ${p.now}
           FROM "LedgerTransaction" t
           WHERE a."transactionId" = ${p.transactionId} AND a."rail" = ${p.rail} AND a."outcome" = 'sending'
             AND t."id" = a."transactionId" AND t."status" = 'failed' AND t."provider" = a."rail"`,
});

/**
 * The rail kept not knowing the reference for the whole grace window: nothing
 * was sent, so the payout fails and its hold is released (transfer.failed).
 * Its attempt is then marked UNCONFIRMED, so its rail is asked once more,
 * later, in case the transfer shows up after all (checkEarlierAttempts). The
 * close commits on its own (the wallet's row is never locked across another
 * round trip); a process that dies between the two only loses that last check.
 */
export async function failUnconfirmed(sql: SqlPool, row: LedgerTransaction, since: Date, log?: Logger): Promise<PayoutOutcome> {
  const reason = `The rail never received this transfer (it did not know its reference from ${since.toISOString()} on)`;
  const won = await finish(sql, row, { status: 'failed', raw: { error: reason } });
  // The payout has failed either way: a mark that cannot be written costs only that later check, said in the log.
  if (won)
    await MARK_UNCONFIRMED.run(sql, { transactionId: row.id, rail: row.provider, reason, now: new Date() }).catch((err: unknown) =>
      log?.warn({ reference: row.reference, err }, 'a payout failed by the grace window will not be asked about once more: its attempt could not be marked'),
    );
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
async function applyReversal(sql: SqlPool, row: LedgerTransaction, result: TransferResult, log?: Logger): Promise<PayoutOutcome> {
  if (row.status === 'processing') {
    const won = await finish(sql, row, { status: 'failed', raw: result.raw, providerReference: result.providerReference, accountName: result.accountName });
    if (won) return { kind: 'failed', reason: RETURNED_BEFORE_SETTLED, transaction: won };
  }
  // Settled meanwhile, or settled when asked: read it as it is now.
  const current = (await CURRENT_ROW.run(sql, { id: row.id })).rows[0];
  // Another rail has it (a completed row never moves again): this rail's reversal is not the payout's.
  if (current && current.provider !== row.provider) return notApplied(sql, row, result, log);
  if (!current || current.status !== 'completed') return { kind: 'skipped', status: current?.status ?? null };
  const creditReference = newReversalReference();
  const metadata = { ...asObject(current.metadata), provider: current.provider, raw: result.raw, reversed_by: creditReference };
  const at = new Date();
  const rendered = renderTransaction({ ...current, status: 'reversed', metadata: metadata as Prisma.JsonObject, updatedAt: at });
  const reversed = await reverseSettledDebit(sql, {
    transactionId: current.id,
    provider: row.provider,
    creditReference,
    metadata,
    event: { name: 'transfer.reversed', payload: rendered },
    at,
  });
  if (!reversed) return { kind: 'skipped', status: null };
  return { kind: 'reversed', transaction: rendered };
}

/**
 * Applies what the rail `row.provider` said: completed → settle; failed →
 * release; pending → ask again later (`schedule`); reversed → applyReversal.
 * The row may have settled or moved to another rail since it was read: only
 * the first close of each kind wins, and nothing is applied once the payout
 * left that rail (an answer that says the rail holds the transfer is kept on
 * its attempt and logged on `log`: keepUnappliedRailAnswer).
 */
export async function applyRailResult(
  sql: SqlPool,
  row: LedgerTransaction,
  result: TransferResult,
  schedule: OutcomeSchedule = DEFAULT_OUTCOME_SCHEDULE,
  log?: Logger,
  askNow?: AskRailNow,
): Promise<PayoutOutcome> {
  if (result.status === 'reversed') return applyReversal(sql, row, result, log);
  if (result.status === 'pending') {
    if (!(await awaitOutcome(sql, row, schedule, { outcome: 'pending', raw: result.raw, providerReference: result.providerReference })))
      return notApplied(sql, row, result, log, askNow);
    return { kind: 'pending' };
  }
  const reason = result.reason ?? 'The payout rail reported a failure';
  const won = await finish(sql, row, { status: result.status, raw: result.raw, providerReference: result.providerReference, accountName: result.accountName });
  if (!won) return notApplied(sql, row, result, log, askNow);
  return result.status === 'completed' ? { kind: 'completed', transaction: won } : { kind: 'failed', reason, transaction: won };
}

/** The rail threw and certainly sent nothing: the row fails, the hold is released, the error is kept for the API. */
export async function failWithProviderError(
  sql: SqlPool,
  row: LedgerTransaction,
  error: { status: number; message: string; raw?: Record<string, unknown> },
): Promise<PayoutOutcome> {
  // The error the API answers with is on record before the row fails: a replay reads it (readPayoutAnswer).
  await KEEP_PROVIDER_ERROR.run(sql, { transactionId: row.id, rail: row.provider, errorStatus: error.status, errorMessage: error.message, now: new Date() });
  const won = await finish(sql, row, { status: 'failed', raw: error.raw ?? { error: error.message } });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'provider_error', status: error.status, message: error.message, transaction: won };
}

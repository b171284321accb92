import { Decimal, type Logger, type Mode } from '@cowrie/core';
import {
  batchPerTurnFor,
  columnList,
  defineStatement,
  firstsThenRepeats,
  sqlColumn,
  sqlList,
  sqlParam,
  type LedgerTransaction,
  type SqlPool,
  type SqlQueryable,
  type StatementRow,
} from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';
import { RailError, type ModeRails, type PayoutRail, type TransferResult } from '@cowrie/rails';
import {
  DEFAULT_OUTCOME_SCHEDULE,
  applyRailResult,
  awaitUnknownOutcome,
  failUnconfirmed,
  failWithProviderError,
  type OutcomeSchedule,
  type PayoutOutcome,
} from './settle-payout';

export interface ExecutePayoutOptions {
  /** Plain pg (see @cowrie/db `sql.ts`): the settle locks the wallet row, as briefly as possible. */
  sql: SqlPool;
  /** The rails of each mode: a test workspace's payout can only reach the sandbox. */
  rails: ModeRails;
  transactionId: number;
  log: Logger;
  /** Aborted when the worker shuts down: the rail call is abandoned and nothing more is written. */
  signal?: AbortSignal;
  /** When an unsettled outcome is asked about again, and how long an unknown one may last. */
  schedule?: OutcomeSchedule;
}

/** A payout as the worker takes it up: the row, and what earlier attempts left on record. */
interface TakenUp {
  row: LedgerTransaction;
  /** The mode of the payout's workspace. */
  mode: Mode;
  /** Attempts before this one that may have reached the rail. */
  earlierAttempts: number;
  /** `unknown` or `pending`: the rail was asked and has not settled it; it is asked, never sent to again. */
  awaiting: 'unknown' | 'pending' | null;
  unknownSince: Date | null;
}

/**
 * One statement reads each row and, when it is a `processing` payout that is
 * not awaiting the rail's answer, commits this attempt before anything is
 * sent: a worker killed during the rail call leaves it on record, and the
 * next attempt asks the rail first. It takes up every payout of a batch (the
 * jobs this worker started in one turn) and commits them together; the
 * attempts are written in id order, so two batches meeting on a row queue
 * instead of deadlocking.
 */
const TAKE_UP = defineStatement({
  name: 'cowrie-payout-take-up',
  params: { transactionIds: sqlList(sqlParam.int), now: sqlParam.timestamp, reversalCheckAt: sqlParam.timestamp },
  text: (p) => `
      WITH input AS (
        SELECT DISTINCT unnest(${p.transactionIds}::int[]) AS "transactionId"
      ), prior AS (
        SELECT d."transactionId", d."outcome", d."unknownSince" FROM "PayoutDispatch" d JOIN input i ON i."transactionId" = d."transactionId"
      ), attempt AS (
        INSERT INTO "PayoutDispatch" ("transactionId", "attempts", "lastSentAt", "reversalCheckAt", "createdAt", "updatedAt")
        SELECT t."id", 1, ${p.now}, ${p.reversalCheckAt}, ${p.now}, ${p.now} FROM "LedgerTransaction" t JOIN input i ON i."transactionId" = t."id"
        WHERE t."type" = 'debit' AND t."status" = 'processing'
          AND NOT EXISTS (SELECT 1 FROM prior WHERE prior."transactionId" = t."id" AND prior."outcome" IN ('unknown', 'pending'))
        ORDER BY t."id"
        ON CONFLICT ("transactionId") DO UPDATE SET "attempts" = "PayoutDispatch"."attempts" + 1, "lastSentAt" = ${p.now}, "updatedAt" = ${p.now}
        RETURNING "transactionId", "attempts"
      )
      SELECT ${columnList(ledgerTransactionColumns, 't')}, a."attempts" AS "dispatchAttempts",
        CASE WHEN prior."outcome" IN ('unknown', 'pending') THEN prior."outcome" END AS "awaiting", prior."unknownSince",
        w."mode" AS "workspaceMode"
      FROM input i JOIN "LedgerTransaction" t ON t."id" = i."transactionId" JOIN "Workspace" w ON w."id" = t."workspaceId"
        LEFT JOIN attempt a ON a."transactionId" = t."id" LEFT JOIN prior ON prior."transactionId" = t."id"`,
  result: {
    ...ledgerTransactionColumns,
    dispatchAttempts: sqlColumn.int.orNull,
    awaiting: sqlColumn.text.orNull.as<TakenUp['awaiting']>(),
    unknownSince: sqlColumn.timestamp.orNull,
    workspaceMode: sqlColumn.text.as<Mode>(),
  },
});

type TakeUpRow = StatementRow<typeof TAKE_UP>;

/** TAKE_UP for a batch of distinct payouts: each one's row as taken up, null when there is none. */
async function takeUpDistinct(sql: SqlQueryable, transactionIds: readonly number[], reversalFirstCheckMs: number): Promise<Array<TakeUpRow | null>> {
  const now = new Date();
  // The reversal watch's first look (checkDueReversals): the take-up is the one write every sent payout has.
  const reversalCheckAt = new Date(now.getTime() + reversalFirstCheckMs);
  const { rows } = await TAKE_UP.run(sql, { transactionIds: [...transactionIds], now, reversalCheckAt });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return transactionIds.map((id) => byId.get(id) ?? null);
}

// A payout asked for twice in one batch (a job and a reconciler's check, say)
// is taken up a second time after the first, as it would be a moment later.
const takeUpBatch = (sql: SqlQueryable, requests: readonly TakeUpRequest[]) =>
  firstsThenRepeats(
    requests,
    (r) => r.transactionId,
    (distinct) =>
      takeUpDistinct(
        sql,
        distinct.map((r) => r.transactionId),
        Math.min(...distinct.map((r) => r.reversalFirstCheckMs)),
      ),
  );

/** A payout to take up, and when the reversal watch first looks at it. */
interface TakeUpRequest {
  transactionId: number;
  reversalFirstCheckMs: number;
}

// The jobs a worker starts together share one take-up statement and its
// commit. A refused batch (a deadlock, say: nothing committed) runs again
// payout by payout.
const takeUpBatcher = batchPerTurnFor(takeUpBatch, { oneByOneWhenRefused: true });

async function takeUp(sql: SqlPool, request: TakeUpRequest): Promise<TakenUp | null | { skipped: string }> {
  const found = await takeUpBatcher(sql).load(request);
  if (!found) return null;
  const { dispatchAttempts, awaiting, unknownSince, workspaceMode, ...row } = found;
  if (row.type !== 'debit') return null;
  if (row.status !== 'processing') return { skipped: row.status };
  return { row, mode: workspaceMode, earlierAttempts: (dispatchAttempts ?? 1) - 1, awaiting, unknownSince };
}

/**
 * What the rail knows of a payout's reference (null: nothing), or undefined
 * when it could not be asked (logged). A shutdown's abort is thrown on.
 */
async function askRail(rail: PayoutRail, row: LedgerTransaction, log: Logger, signal?: AbortSignal): Promise<TransferResult | null | undefined> {
  try {
    return await rail.verifyTransfer(row.reference, { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    log.warn({ reference: row.reference, error: (err as Error).message }, 'the rail could not be asked about a payout; asking again later');
    return undefined;
  }
}

/**
 * Sends one `processing` payout to its rail and settles it (the payout
 * worker's `payout.execute`). It acts only on a `processing` row. When an
 * earlier attempt may have reached the rail it asks the rail by reference
 * first, and a resend, if any, carries the same reference (the rail's
 * idempotency key).
 *
 * An outcome the rail cannot confirm stays unknown: after a timeout, a reset
 * or a 5xx that may have been sent, one "not found" proves nothing (the rail
 * may commit the transfer a moment later), so the row stays `processing` with
 * its hold and the rail is asked again on a backoff schedule
 * (checkPayoutOutcome). Only a definitive answer settles or releases it, or a
 * grace window in which the rail kept not knowing the reference. A rail that
 * certainly sent nothing (it refused before accepting) fails the payout at once.
 */
export async function executePayout({
  sql,
  rails,
  transactionId,
  log,
  signal,
  schedule = DEFAULT_OUTCOME_SCHEDULE,
}: ExecutePayoutOptions): Promise<PayoutOutcome> {
  const taken = await takeUp(sql, { transactionId, reversalFirstCheckMs: schedule.reversalFirstCheckMs });
  if (!taken) return { kind: 'skipped', status: null };
  if ('skipped' in taken) return { kind: 'skipped', status: taken.skipped };
  const { row } = taken;
  const rail = rails[taken.mode].byId(row.provider);

  if (taken.awaiting) return checkPayoutOutcome({ sql, rail, row, awaiting: taken.awaiting, unknownSince: taken.unknownSince, schedule, log, signal });

  if (taken.earlierAttempts > 0) {
    const known = await askRail(rail, row, log, signal);
    if (known === undefined) return awaitUnknownOutcome(sql, row, schedule, { status: 502, message: 'The payout rail could not confirm this transfer' });
    if (known) {
      log.info({ reference: row.reference, status: known.status }, 'payout found at the rail; not sending again');
      return applyRailResult(sql, row, known, schedule);
    }
    // The earlier attempt's process died before it heard back: the rail does
    // not know the reference, and a send with the same one cannot pay twice.
  }

  let result: TransferResult;
  // From the moment the request that moves money leaves, the rail may hold the transfer.
  let sendBegan = false;
  try {
    result = await rail.transfer({
      reference: row.reference,
      amount: new Decimal(row.amount.toString()),
      currency: row.currency,
      accountNumber: row.counterpartyAccount ?? '',
      bankCode: row.bankCode,
      accountName: row.counterpartyName,
      narration: row.description,
      signal,
      onSend: () => {
        sendBegan = true;
      },
    });
  } catch (err) {
    if (signal?.aborted) {
      // Abandoned (the worker is stopping) after the send began: recorded as
      // possibly sent before the job is given up, so whoever takes it up next
      // asks the rail and never sends again (a "duplicate reference" or a
      // "not found" then proves nothing until the grace window ends).
      if (sendBegan) await awaitUnknownOutcome(sql, row, schedule, { status: 504, message: 'The payout worker stopped while the rail had the transfer' });
      throw err;
    }
    const railError =
      err instanceof RailError ? err : new RailError(502, 'The payout rail failed unexpectedly', { provider: rail.id, maybeSent: true, cause: err });
    if (!railError.maybeSent) {
      log.warn({ reference: row.reference, status: railError.status, error: railError.message }, 'payout rail failed; nothing was sent');
      return failWithProviderError(sql, row, { status: railError.status, message: railError.message, raw: railError.raw });
    }
    // Ambiguous: money may have moved. Ask; whatever it cannot confirm stays unknown.
    const known = await askRail(rail, row, log, signal);
    if (known) return applyRailResult(sql, row, known, schedule);
    log.warn(
      { reference: row.reference, status: railError.status, error: railError.message },
      'payout outcome unknown: it stays processing with its hold until the rail confirms',
    );
    return awaitUnknownOutcome(sql, row, schedule, { status: railError.status, message: railError.message });
  }
  return applyRailResult(sql, row, result, schedule);
}

export interface CheckPayoutOutcomeOptions {
  sql: SqlPool;
  rail: PayoutRail;
  row: LedgerTransaction;
  awaiting: 'unknown' | 'pending';
  unknownSince: Date | null;
  schedule: OutcomeSchedule;
  log: Logger;
  signal?: AbortSignal;
  now?: Date;
}

/**
 * Asks the rail about a payout it has not settled, by reference, and never
 * sends: a definitive answer settles or releases it; `pending`, an error or
 * "not found" schedule the next check. An unknown outcome the rail still does
 * not know after the grace window was never sent: the payout fails and its
 * hold is released.
 */
export async function checkPayoutOutcome({
  sql,
  rail,
  row,
  awaiting,
  unknownSince,
  schedule,
  log,
  signal,
  now = new Date(),
}: CheckPayoutOutcomeOptions): Promise<PayoutOutcome> {
  const known = await askRail(rail, row, log, signal);
  if (known === undefined) return awaitUnknownOutcome(sql, row, schedule);
  if (known) {
    if (known.status !== 'pending') log.info({ reference: row.reference, status: known.status }, 'payout outcome confirmed by the rail');
    return applyRailResult(sql, row, known, schedule);
  }
  const since = awaiting === 'unknown' && unknownSince ? unknownSince : null;
  if (since && now.getTime() - since.getTime() >= schedule.graceMs) {
    log.warn({ reference: row.reference, unknownSince: since.toISOString() }, 'the rail never knew this payout within the grace window: failed, hold released');
    return failUnconfirmed(sql, row, since);
  }
  return awaitUnknownOutcome(sql, row, schedule);
}

import { Decimal, type Logger, type Mode } from '@cowrie/core';
import {
  batchPerTurnFor,
  columnList,
  defineStatement,
  firstsThenRepeats,
  insertColumns,
  sqlColumn,
  sqlList,
  sqlParam,
  type LedgerTransaction,
  type PayoutAttempt,
  type PayoutDispatch,
  type SqlPool,
  type SqlQueryable,
  type StatementRow,
} from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';
import { RailError, type ModeRails, type PayoutRail, type RailHealth, type TransferResult } from '@cowrie/rails';
import { nextRailOf, railReferenceOf } from './rail-route';
import {
  DEFAULT_OUTCOME_SCHEDULE,
  applyRailResult,
  awaitUnknownOutcome,
  awaitAcknowledgedOutcome,
  failUnconfirmed,
  failWithProviderError,
  type AskRailNow,
  type OutcomeSchedule,
  type PayoutOutcome,
} from './payout-close';

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

/** The columns a rail's attempt is opened with (`sending`), by TAKE_UP and FAIL_OVER. */
const OPENED_ATTEMPT_COLUMNS = insertColumns<PayoutAttempt>()('transactionId', 'rail', 'reference', 'outcome', 'createdAt', 'updatedAt');

/**
 * One statement reads each row and, when it is a `processing` payout that is
 * not awaiting the rail's answer, commits this attempt before anything is
 * sent: a worker killed during the rail call leaves it on record, and the
 * next attempt asks the rail first. It takes up every payout of a batch (the
 * jobs this worker started in one turn) and commits them together; the
 * attempts are written in id order, so two batches meeting on a row queue
 * instead of deadlocking.
 *
 * Its text, for the payouts `input` names (one `"transactionId"` column).
 */
const takeUpText = (input: string, now: string, reversalCheckAt: string) => `
      WITH input AS (${input}
      ), prior AS (
        SELECT d."transactionId", d."outcome", d."unknownSince" FROM "PayoutDispatch" d JOIN input i ON i."transactionId" = d."transactionId"
      ), attempt AS (
        INSERT INTO "PayoutDispatch" (${insertColumns<PayoutDispatch>()('transactionId', 'attempts', 'lastSentAt', 'reversalCheckAt', 'createdAt', 'updatedAt')})
        SELECT t."id", 1, ${now}, ${reversalCheckAt}, ${now}, ${now} FROM "LedgerTransaction" t JOIN input i ON i."transactionId" = t."id"
        WHERE t."type" = 'debit' AND t."status" = 'processing'
          AND NOT EXISTS (SELECT 1 FROM prior WHERE prior."transactionId" = t."id" AND prior."outcome" IN ('unknown', 'pending'))
        ORDER BY t."id"
        ON CONFLICT ("transactionId") DO UPDATE SET "attempts" = "PayoutDispatch"."attempts" + 1, "lastSentAt" = ${now}, "updatedAt" = ${now}
        RETURNING "transactionId", "attempts"
      ), recorded AS (
        -- The rail's attempt, on record before the rail is called (the first rail's: a later rail's was written when the payout moved to it).
        INSERT INTO "PayoutAttempt" (${OPENED_ATTEMPT_COLUMNS})
        SELECT t."id", t."provider", t."reference", 'sending', ${now}, ${now} FROM attempt a JOIN "LedgerTransaction" t ON t."id" = a."transactionId"
        ON CONFLICT ("transactionId", "rail") DO NOTHING
      )
      SELECT ${columnList(ledgerTransactionColumns, 't')}, a."attempts" AS "dispatchAttempts",
        CASE WHEN prior."outcome" IN ('unknown', 'pending') THEN prior."outcome" END AS "awaiting", prior."unknownSince",
        w."mode" AS "workspaceMode"
      FROM input i JOIN "LedgerTransaction" t ON t."id" = i."transactionId" JOIN "Workspace" w ON w."id" = t."workspaceId"
        LEFT JOIN attempt a ON a."transactionId" = t."id" LEFT JOIN prior ON prior."transactionId" = t."id"`;

const TAKE_UP_RESULT = {
  ...ledgerTransactionColumns,
  dispatchAttempts: sqlColumn.int.orNull,
  awaiting: sqlColumn.text.orNull.as<TakenUp['awaiting']>(),
  unknownSince: sqlColumn.timestamp.orNull,
  workspaceMode: sqlColumn.text.as<Mode>(),
};

const TAKE_UP = defineStatement({
  name: 'cowrie-payout-take-up',
  params: { transactionIds: sqlList(sqlParam.int), now: sqlParam.timestamp, reversalCheckAt: sqlParam.timestamp },
  text: (p) => takeUpText(`SELECT DISTINCT unnest(${p.transactionIds}::int[]) AS "transactionId"`, p.now, p.reversalCheckAt),
  result: TAKE_UP_RESULT,
});

/**
 * TAKE_UP for one payout, the usual batch at a moderate rate. Postgres plans a
 * prepared statement afresh at each execution while its generic plan looks
 * dearer than the custom ones: costed for an array of unknown length (10
 * ids), TAKE_UP's generic plan always did against a one-payout custom plan,
 * so every take-up paid for planning its CTEs (about 0.7 ms here, several
 * times the statement's own work). With one id the generic plan is the same
 * one-row plan, and it is made once per connection.
 */
const TAKE_UP_ONE = defineStatement({
  name: 'cowrie-payout-take-up-one',
  params: { transactionId: sqlParam.int, now: sqlParam.timestamp, reversalCheckAt: sqlParam.timestamp },
  text: (p) => takeUpText(`SELECT ${p.transactionId}::int AS "transactionId"`, p.now, p.reversalCheckAt),
  result: TAKE_UP_RESULT,
});

type TakeUpRow = StatementRow<typeof TAKE_UP>;

/** TAKE_UP for a batch of distinct payouts: each one's row as taken up, null when there is none. */
async function takeUpDistinct(sql: SqlQueryable, transactionIds: readonly number[], reversalFirstCheckMs: number): Promise<Array<TakeUpRow | null>> {
  const now = new Date();
  // The reversal watch's first look (checkDueReversals): the take-up is the one write every sent payout has.
  const reversalCheckAt = new Date(now.getTime() + reversalFirstCheckMs);
  const { rows } =
    transactionIds.length === 1
      ? await TAKE_UP_ONE.run(sql, { transactionId: transactionIds[0]!, now, reversalCheckAt })
      : await TAKE_UP.run(sql, { transactionIds: [...transactionIds], now, reversalCheckAt });
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
 * What the rail knows of a payout's reference on it (null: nothing), or
 * undefined when it could not be asked (logged). A shutdown's abort is thrown on.
 */
async function askRail(rail: PayoutRail, row: LedgerTransaction, log: Logger, signal?: AbortSignal): Promise<TransferResult | null | undefined> {
  const reference = railReferenceOf(row, rail.id);
  try {
    return await rail.verifyTransfer(reference, { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    log.warn({ reference, rail: rail.id, error: (err as Error).message }, 'the rail could not be asked about a payout; asking again later');
    return undefined;
  }
}

/**
 * Why a rail certainly did not take a payout, in a way that is the rail's
 * own, so the next rail of its route may: it refused before accepting (down,
 * unreachable, credentials, rate limited: a RailError that sent nothing) or
 * answered a definite `failed` for its own reason (its balance). Null for
 * everything else: a destination's failure fails on every rail, and an
 * ambiguous outcome may have paid.
 */
export type RailRefusal = { outcome: 'refused' | 'failed'; reason: string; error?: RailError; result?: TransferResult };

function refusalOf(answer: TransferResult | RailError): RailRefusal | null {
  if (answer instanceof RailError) return answer.maybeSent ? null : { outcome: 'refused', reason: answer.message, error: answer };
  if (answer.status === 'failed' && answer.failure === 'rail')
    return { outcome: 'failed', reason: answer.reason ?? 'the rail failed the transfer', result: answer };
  return null;
}

/**
 * Moves a `processing` payout from its rail to the next of its route, in one
 * statement: the rail's attempt keeps why (refused, failed, skipped), the
 * next rail's attempt is on record (`sending`, its own reference) before it is
 * called, the row names the new rail (`provider`, no provider reference), and
 * what the dispatch awaited from the old rail is cleared. Only while the row
 * is still `processing` on that rail: false when anyone else settled or moved it.
 */
const FAIL_OVER = defineStatement({
  name: 'cowrie-payout-fail-over',
  params: {
    transactionId: sqlParam.int,
    from: sqlParam.text,
    fromReference: sqlParam.text,
    outcome: sqlParam.text,
    reason: sqlParam.text,
    to: sqlParam.text,
    toReference: sqlParam.text,
    now: sqlParam.timestamp,
  },
  text: (p) => `
      WITH moved AS (
        UPDATE "LedgerTransaction" SET "provider" = ${p.to}, "providerReference" = NULL, "updatedAt" = ${p.now}
        WHERE "id" = ${p.transactionId} AND "status" = 'processing' AND "type" = 'debit' AND "provider" = ${p.from}
        RETURNING "id"
      ), closed AS (
        INSERT INTO "PayoutAttempt" (${insertColumns<PayoutAttempt>()('transactionId', 'rail', 'reference', 'outcome', 'reason', 'createdAt', 'updatedAt')})
        SELECT "id", ${p.from}, ${p.fromReference}, ${p.outcome}, ${p.reason}, ${p.now}, ${p.now} FROM moved
        ON CONFLICT ("transactionId", "rail") DO UPDATE SET "outcome" = EXCLUDED."outcome", "reason" = EXCLUDED."reason", "updatedAt" = EXCLUDED."updatedAt"
      ), opened AS (
        INSERT INTO "PayoutAttempt" (${OPENED_ATTEMPT_COLUMNS})
        SELECT "id", ${p.to}, ${p.toReference}, 'sending', ${p.now}, ${p.now} FROM moved
        ON CONFLICT ("transactionId", "rail") DO NOTHING
      ), cleared AS (
        UPDATE "PayoutDispatch" SET "outcome" = NULL, "errorStatus" = NULL, "errorMessage" = NULL, "unknownSince" = NULL, "nextCheckAt" = NULL, "updatedAt" = ${p.now}
        WHERE "transactionId" IN (SELECT "id" FROM moved)
      )
      SELECT count(*)::int AS "moved" FROM moved`,
  result: { moved: sqlColumn.int },
});

/**
 * The payout moves to `to`, the next rail of its route (see FAIL_OVER): the
 * row as it now is, or null when it was settled or moved meanwhile.
 */
export async function failOver(
  sql: SqlQueryable,
  row: LedgerTransaction,
  to: string,
  why: { outcome: RailRefusal['outcome'] | 'skipped'; reason: string },
): Promise<LedgerTransaction | null> {
  const now = new Date();
  const { rows } = await FAIL_OVER.run(sql, {
    transactionId: row.id,
    from: row.provider,
    fromReference: railReferenceOf(row),
    outcome: why.outcome,
    reason: why.reason.slice(0, 500),
    to,
    toReference: railReferenceOf(row, to),
    now,
  });
  if (!rows[0]?.moved) return null;
  return { ...row, provider: to, providerReference: null, updatedAt: now };
}

/** What the step on one rail came to: a final or awaited outcome, or the rail's refusal (the caller moves on or fails it). */
type RailStep = { kind: 'done'; outcome: PayoutOutcome } | { kind: 'refused'; refusal: RailRefusal };

/** Applies the rail's answer, unless it is the rail's own definite failure and another rail may take the payout. */
async function settleOrRefuse(
  sql: SqlPool,
  row: LedgerTransaction,
  result: TransferResult,
  schedule: OutcomeSchedule,
  log: Logger,
  askNow?: AskRailNow,
): Promise<RailStep> {
  const refusal = nextRailOf(row) ? refusalOf(result) : null;
  if (refusal) return { kind: 'refused', refusal };
  return { kind: 'done', outcome: await applyRailResult(sql, row, result, schedule, log, askNow) };
}

/**
 * The rail refused a resend (before accepting it, or with a definite failure
 * of its own) of a payout an earlier attempt may already have sent it: the
 * refusal says nothing of that first send, which the rail may still hold or
 * commit, so it is not a certain non-acceptance. The payout stays on the rail
 * under the unknown-outcome rule: settled by the rail's answer, or failed
 * once the rail kept not knowing the reference for the grace window.
 */
async function resendRefused(
  opts: { sql: SqlPool; log: Logger; schedule: OutcomeSchedule },
  rail: PayoutRail,
  row: LedgerTransaction,
  error: { status: number; message: string },
): Promise<RailStep> {
  opts.log.warn(
    { reference: railReferenceOf(row, rail.id), rail: rail.id, status: error.status, error: error.message },
    'the rail refused a resend, but an earlier attempt may have reached it: the payout stays on it, outcome unknown, until the rail confirms',
  );
  return { kind: 'done', outcome: await awaitUnknownOutcome(opts.sql, row, opts.schedule, error) };
}

/**
 * One rail's step for a payout taken up to send: ask first when an earlier
 * attempt may have reached it, then send under the rail's own reference. When
 * an earlier attempt may have reached it (`askFirst`), a refusal of the
 * resend keeps the payout on the rail (resendRefused): only a rail that never
 * had it can be certain it did not take it.
 */
async function stepOnRail(
  opts: { sql: SqlPool; log: Logger; signal?: AbortSignal; schedule: OutcomeSchedule; health: RailHealth | null },
  rail: PayoutRail,
  row: LedgerTransaction,
  askFirst: boolean,
): Promise<RailStep> {
  const { sql, log, signal, schedule, health } = opts;
  const reference = railReferenceOf(row, rail.id);
  if (askFirst) {
    const known = await askRail(rail, row, log, signal);
    if (known === undefined)
      return {
        kind: 'done',
        outcome: await awaitUnknownOutcome(sql, row, schedule, { status: 502, message: 'The payout rail could not confirm this transfer' }),
      };
    if (known) {
      log.info({ reference, rail: rail.id, status: known.status }, 'payout found at the rail; not sending again');
      return settleOrRefuse(sql, row, known, schedule, log);
    }
    // The earlier attempt's process died before it heard back: the rail does
    // not know the reference, and a send with the same one cannot pay twice.
  }

  let result: TransferResult;
  // From the moment the request that moves money leaves, the rail may hold the transfer.
  let sendBegan = false;
  try {
    result = await rail.transfer({
      reference,
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
      await health?.failed(rail.id);
      if (askFirst) return resendRefused(opts, rail, row, { status: railError.status, message: railError.message });
      log.warn({ reference, rail: rail.id, status: railError.status, error: railError.message }, 'payout rail failed; nothing was sent');
      if (nextRailOf(row)) return { kind: 'refused', refusal: refusalOf(railError)! };
      return { kind: 'done', outcome: await failWithProviderError(sql, row, { status: railError.status, message: railError.message, raw: railError.raw }) };
    }
    // Ambiguous: money may have moved. It stays on this rail: ask; whatever it cannot confirm stays unknown.
    const known = await askRail(rail, row, log, signal);
    if (known) return settleOrRefuse(sql, row, known, schedule, log);
    log.warn(
      { reference, rail: rail.id, status: railError.status, error: railError.message },
      'payout outcome unknown: it stays processing with its hold until the rail confirms',
    );
    return { kind: 'done', outcome: await awaitUnknownOutcome(sql, row, schedule, { status: railError.status, message: railError.message }) };
  }
  const railOwnFailure = result.status === 'failed' && result.failure === 'rail';
  if (health) await (railOwnFailure ? health.failed(rail.id) : health.succeeded(rail.id));
  if (askFirst && railOwnFailure) return resendRefused(opts, rail, row, { status: 502, message: result.reason ?? 'The payout rail refused the transfer' });
  // The call's own answer may have been overtaken while it was out (a reversal notification failing the payout): asked again before it is kept.
  return settleOrRefuse(sql, row, result, schedule, log, () => askRail(rail, row, log, signal));
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
 * grace window in which the rail kept not knowing the reference. It never
 * moves to another rail.
 *
 * A payout with more rails in its route moves to the next one only when its
 * rail certainly did not take it (refusalOf: refused before accepting, or a
 * definite failure that is the rail's own, of a send no earlier attempt may
 * have preceded there), or when the rail's breaker is open and it was never
 * sent there; the last rail's refusal fails it as before. A refused resend
 * after an attempt that may have reached the rail neither moves nor fails
 * it: it stays unknown on that rail (resendRefused). The client sees one
 * transaction and one final status.
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
  let { row } = taken;
  const modeRails = rails[taken.mode];
  // One-rail payouts never look at rail health: a breaker has nowhere to send them.
  const health = nextRailOf(row) ? modeRails.health : null;
  const step = { sql, log, signal, schedule, health };

  let next: RailStep;
  if (taken.awaiting) {
    const checked = await checkRail({
      sql,
      rail: modeRails.byId(row.provider),
      row,
      awaiting: taken.awaiting,
      unknownSince: taken.unknownSince,
      schedule,
      log,
      signal,
    });
    if (checked.kind === 'done') return checked.outcome;
    next = checked;
  } else {
    const rail = modeRails.byId(row.provider);
    // A rail whose breaker is open is passed over, but only by a payout never sent to it (and never the last rail).
    if (health && taken.earlierAttempts === 0 && !(await health.allows(rail.id))) {
      next = { kind: 'refused', refusal: { outcome: 'refused', reason: `the ${rail.id} rail is cooling down after failing` } };
      const moved = await failOver(sql, row, nextRailOf(row)!, { outcome: 'skipped', reason: next.refusal.reason });
      if (!moved) return { kind: 'skipped', status: null };
      log.info({ reference: row.reference, from: rail.id, to: moved.provider }, 'payout passed over a cooling rail');
      row = moved;
      next = await stepOnRail(step, modeRails.byId(row.provider), row, false);
    } else {
      next = await stepOnRail(step, rail, row, taken.earlierAttempts > 0);
    }
  }
  // The rail certainly did not take it: on to the next rail of its route, each on record before it is called.
  while (next.kind === 'refused') {
    const to = nextRailOf(row)!;
    const moved = await failOver(sql, row, to, next.refusal);
    if (!moved) return { kind: 'skipped', status: null };
    log.warn(
      { reference: row.reference, from: row.provider, to, reason: next.refusal.reason },
      'payout moved to the next rail: the last one certainly did not take it',
    );
    row = moved;
    next = await stepOnRail(step, modeRails.byId(row.provider), row, false);
  }
  return next.outcome;
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

/** checkPayoutOutcome's step: the outcome, or the rail's own definite failure of a payout another rail may take. */
async function checkRail({ sql, rail, row, awaiting, unknownSince, schedule, log, signal, now = new Date() }: CheckPayoutOutcomeOptions): Promise<RailStep> {
  const known = await askRail(rail, row, log, signal);
  // The rail took this transfer (it answered pending, or gave its own reference): an error or a "not found"
  // now proves nothing (another key, a proxy's 404, the rail's own lag) and never starts the grace window.
  const acknowledged = awaiting === 'pending' || row.providerReference !== null;
  if (known === undefined) return { kind: 'done', outcome: await (acknowledged ? awaitAcknowledgedOutcome : awaitUnknownOutcome)(sql, row, schedule) };
  if (known) {
    if (known.status !== 'pending') log.info({ reference: row.reference, rail: rail.id, status: known.status }, 'payout outcome confirmed by the rail');
    return settleOrRefuse(sql, row, known, schedule, log);
  }
  if (acknowledged) {
    log.error(
      { reference: row.reference, rail: rail.id, providerReference: row.providerReference },
      'the rail does not find a transfer it acknowledged: kept processing with its hold, asked again; check the rail key and URL',
    );
    return { kind: 'done', outcome: await awaitAcknowledgedOutcome(sql, row, schedule, true) };
  }
  const since = awaiting === 'unknown' && unknownSince ? unknownSince : null;
  if (since && now.getTime() - since.getTime() >= schedule.graceMs) {
    log.warn({ reference: row.reference, unknownSince: since.toISOString() }, 'the rail never knew this payout within the grace window: failed, hold released');
    return { kind: 'done', outcome: await failUnconfirmed(sql, row, since, log) };
  }
  return { kind: 'done', outcome: await awaitUnknownOutcome(sql, row, schedule) };
}

/**
 * Asks the rail about a payout it has not settled, by reference, and never
 * sends: a definitive answer settles or releases it; `pending`, an error or
 * "not found" schedule the next check. An unknown outcome the rail still does
 * not know after the grace window was never sent: the payout fails and its
 * hold is released. A definite failure that is the rail's own, of a payout
 * with a next rail, moves it there (recorded, never sent from here): the
 * re-queue pass hands it to a worker, which sends it on the next rail.
 */
export async function checkPayoutOutcome(options: CheckPayoutOutcomeOptions): Promise<PayoutOutcome> {
  const checked = await checkRail(options);
  if (checked.kind === 'done') return checked.outcome;
  const moved = await failOver(options.sql, options.row, nextRailOf(options.row)!, checked.refusal);
  if (moved)
    options.log.warn(
      { reference: options.row.reference, from: options.row.provider, to: moved.provider },
      'payout moved to the next rail; it is sent there when re-queued',
    );
  return moved ? { kind: 'pending' } : { kind: 'skipped', status: null };
}

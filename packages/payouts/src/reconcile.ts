import type { Logger, Mode } from '@cowrie/core';
import { columnList, defineStatement, holdConnection, sqlColumn, sqlList, sqlParam, type SqlPool, type SqlQueryable } from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';
import type { ModeRails } from '@cowrie/rails';
import { checkPayoutOutcome } from './execute-payout';
import { UNCONFIRMED, applyRailResult, keepUnappliedRailAnswer, type FoundOnRail } from './payout-close';
import { payoutDispatchColumns } from './payout-dispatch-columns';
import { railReferenceOf } from './rail-route';
import type { OutcomeSchedule, PayoutOutcome } from './payout-close';

/** A payout as the reconciler hands it on: what its job id is made of. */
export interface StalePayout {
  id: number;
  reference: string;
}

export interface ReconcileOptions {
  sql: SqlQueryable;
  /** A processing payout untouched for this long is a candidate (PAYOUT_RECONCILE_AFTER_MS). */
  olderThanMs: number;
  /** Whether a queued, delayed or running job exists for the payout. */
  hasLiveJob: (payout: StalePayout) => Promise<boolean>;
  /** Queues the payout again. */
  requeue: (payout: StalePayout) => Promise<void>;
  now?: Date;
  /** Rows per pass. */
  limit?: number;
}

const STALE_PAYOUT_COLUMNS = { id: ledgerTransactionColumns.id, reference: ledgerTransactionColumns.reference };

const STALE_PAYOUTS = defineStatement({
  name: 'cowrie-stale-payouts',
  params: { untouchedSince: sqlParam.timestamp, limit: sqlParam.int },
  text: (p) => `SELECT ${columnList(STALE_PAYOUT_COLUMNS, 't')} FROM "LedgerTransaction" t LEFT JOIN "PayoutDispatch" d ON d."transactionId" = t."id"
           WHERE t."status" = 'processing' AND t."type" = 'debit' AND t."updatedAt" < ${p.untouchedSince}
             AND (d."outcome" IS NULL OR d."outcome" NOT IN ('unknown', 'pending'))
           ORDER BY t."id" LIMIT ${p.limit}`,
  result: STALE_PAYOUT_COLUMNS,
});

/**
 * Finds `processing` payouts left without a live job (a crash between commit
 * and enqueue, a job lost with Redis's data) and queues them again. The worker
 * then asks the rail by reference before sending, so re-queuing never pays
 * twice. Payouts awaiting the rail's answer (`unknown`, `pending`) are not
 * re-queued: checkDuePayouts asks about them on their schedule.
 */
export async function reconcilePayouts({ sql, olderThanMs, hasLiveJob, requeue, now = new Date(), limit = 500 }: ReconcileOptions) {
  const { rows: stale } = await STALE_PAYOUTS.run(sql, { untouchedSince: new Date(now.getTime() - olderThanMs), limit });
  const requeued: number[] = [];
  for (const payout of stale) {
    if (await hasLiveJob(payout)) continue;
    await requeue(payout);
    requeued.push(payout.id);
  }
  return { checked: stale.length, requeued };
}

/** The advisory lock the re-queue pass takes: one replica runs it at a time. */
const REQUEUE_PASS_LOCK = 'cowrie:payout-requeue-pass';

const TRY_ADVISORY_LOCK = defineStatement({
  name: 'cowrie-try-advisory-lock',
  params: { lock: sqlParam.text },
  text: (p) => `SELECT pg_try_advisory_lock(hashtext(${p.lock})) AS "locked"`,
  result: { locked: sqlColumn.boolean },
});

const ADVISORY_UNLOCK = defineStatement({
  name: 'cowrie-advisory-unlock',
  params: { lock: sqlParam.text },
  text: (p) => `SELECT pg_advisory_unlock(hashtext(${p.lock})) AS "unlocked"`,
  result: { unlocked: sqlColumn.boolean },
});

/**
 * reconcilePayouts, run by at most one replica at a time: a pass that finds
 * another one in progress (the advisory lock taken) returns null and leaves
 * the work to it. The lock is a session lock on one held connection, not a
 * transaction's: the pass waits on Redis for each payout, and an open
 * transaction would hold a snapshot (and meet idle_in_transaction_session_timeout)
 * meanwhile. A replica that dies mid-pass loses its connection, and the lock with it.
 */
export async function reconcilePayoutsExclusively(pool: SqlPool, options: Omit<ReconcileOptions, 'sql'>) {
  const held = await holdConnection(pool);
  const { client } = held;
  let broken = false;
  try {
    const { rows } = await TRY_ADVISORY_LOCK.run(client, { lock: REQUEUE_PASS_LOCK });
    if (!rows[0]?.locked) return null;
    try {
      return await reconcilePayouts({ ...options, sql: pool });
    } finally {
      await ADVISORY_UNLOCK.run(client, { lock: REQUEUE_PASS_LOCK }).catch(() => {
        // The connection is gone, and its lock with it; never hand it back to the pool.
        broken = true;
      });
    }
  } finally {
    held.release(broken);
  }
}

export interface CheckDuePayoutsOptions {
  sql: SqlPool;
  rails: ModeRails;
  schedule: OutcomeSchedule;
  log: Logger;
  now?: Date;
  /** Payouts per pass. */
  limit?: number;
  /** Checks in flight at once. */
  concurrency?: number;
  /** A check claimed by a process that died is taken up again after this long. */
  leaseMs?: number;
  /** Aborted when the process stops: no further rail is asked, and a question in flight is abandoned (asked again by a later pass). */
  signal?: AbortSignal;
}

const DUE_CHECK_COLUMNS = {
  transactionId: payoutDispatchColumns.transactionId,
  outcome: payoutDispatchColumns.outcome.as<'unknown' | 'pending'>(),
  unknownSince: payoutDispatchColumns.unknownSince,
};

/** Claims the due checks: their next check moves a lease ahead. */
const CLAIM_DUE_CHECKS = defineStatement({
  name: 'cowrie-claim-due-payout-checks',
  params: { now: sqlParam.timestamp, leaseUntil: sqlParam.timestamp, limit: sqlParam.int },
  text: (p) => `UPDATE "PayoutDispatch" d SET "nextCheckAt" = ${p.leaseUntil} WHERE d."transactionId" IN (
             SELECT p."transactionId" FROM "PayoutDispatch" p JOIN "LedgerTransaction" t ON t."id" = p."transactionId"
             WHERE p."outcome" IN ('unknown', 'pending') AND p."nextCheckAt" <= ${p.now} AND t."status" = 'processing'
             ORDER BY p."nextCheckAt" LIMIT ${p.limit} FOR UPDATE OF p SKIP LOCKED)
           RETURNING ${columnList(DUE_CHECK_COLUMNS, 'd')}`,
  result: DUE_CHECK_COLUMNS,
});

/** Payouts by id, each with its workspace's mode (which rails it may reach), whatever their status. */
const PAYOUTS_WITH_MODE = defineStatement({
  name: 'cowrie-payouts-with-mode',
  params: { ids: sqlList(sqlParam.int) },
  text: (
    p,
  ) => `SELECT ${columnList(ledgerTransactionColumns, 't')}, w."mode" AS "workspaceMode" FROM "LedgerTransaction" t JOIN "Workspace" w ON w."id" = t."workspaceId"
           WHERE t."id" = ANY(${p.ids}::int[])`,
  result: { ...ledgerTransactionColumns, workspaceMode: sqlColumn.text.as<Mode>() },
});

/** PAYOUTS_WITH_MODE as a map by id. */
async function payoutsWithMode(sql: SqlQueryable, ids: number[]) {
  const { rows } = await PAYOUTS_WITH_MODE.run(sql, { ids });
  return new Map(rows.map(({ workspaceMode, ...row }) => [row.id, { row, mode: workspaceMode }]));
}

/**
 * Asks the rail about every payout awaiting its answer whose next check is
 * due (`unknown` outcomes and `pending` transfers), by reference, never
 * sending. Each due payout is claimed first (its next check moved a lease
 * ahead, SKIP LOCKED), so replicas never ask about the same payout at once.
 */
export async function checkDuePayouts({
  sql,
  rails,
  schedule,
  log,
  now = new Date(),
  limit = 200,
  concurrency = 8,
  leaseMs = 60_000,
  signal,
}: CheckDuePayoutsOptions) {
  const { rows: claimed } = await CLAIM_DUE_CHECKS.run(sql, { now, leaseUntil: new Date(now.getTime() + leaseMs), limit });
  if (!claimed.length) return { checked: 0, outcomes: [] as PayoutOutcome['kind'][], lostByRail: [] as string[], found: [] as FoundOnRail[] };
  const byId = await payoutsWithMode(
    sql,
    claimed.map((c) => c.transactionId),
  );
  const outcomes: PayoutOutcome['kind'][] = [];
  // Rails that did not find a transfer they had acknowledged (the payout stays processing with its hold).
  const lostByRail: string[] = [];
  // Answers kept for an operator (the payout had moved on, or failed, meanwhile).
  const keptLate: FoundOnRail[] = [];
  // Stopping: the checks not made keep their lease and are taken up after it.
  for (let i = 0; i < claimed.length && !signal?.aborted; i += concurrency) {
    const results = await Promise.all(
      claimed.slice(i, i + concurrency).map(async (due) => {
        const found = byId.get(due.transactionId);
        if (!found || found.row.status !== 'processing') return null;
        const { row, mode } = found;
        try {
          const outcome = await checkPayoutOutcome({
            sql,
            rail: rails[mode].byId(row.provider),
            row,
            awaiting: due.outcome,
            unknownSince: due.unknownSince,
            schedule,
            log,
            signal,
            now,
          });
          if (outcome.kind === 'pending' && outcome.lostByRail) lostByRail.push(row.provider);
          if (outcome.kind === 'skipped' && outcome.found) keptLate.push(outcome.found);
          return outcome.kind;
        } catch (err) {
          log.warn({ transactionId: row.id, err }, 'payout outcome check failed; it is taken up again after its lease');
          return null;
        }
      }),
    );
    for (const kind of results) if (kind) outcomes.push(kind);
  }
  return { checked: claimed.length, outcomes, lostByRail, found: keptLate };
}

const DUE_REVERSAL_CHECK_COLUMNS = { transactionId: payoutDispatchColumns.transactionId, reversalChecks: payoutDispatchColumns.reversalChecks };

/** Claims the due reversal checks: their next check moves a lease ahead. */
const CLAIM_DUE_REVERSAL_CHECKS = defineStatement({
  name: 'cowrie-claim-due-reversal-checks',
  params: { now: sqlParam.timestamp, leaseUntil: sqlParam.timestamp, limit: sqlParam.int },
  text: (p) => `UPDATE "PayoutDispatch" d SET "reversalCheckAt" = ${p.leaseUntil} WHERE d."transactionId" IN (
             SELECT p."transactionId" FROM "PayoutDispatch" p WHERE p."reversalCheckAt" <= ${p.now}
             ORDER BY p."reversalCheckAt" LIMIT ${p.limit} FOR UPDATE SKIP LOCKED)
           RETURNING ${columnList(DUE_REVERSAL_CHECK_COLUMNS, 'd')}`,
  result: DUE_REVERSAL_CHECK_COLUMNS,
});

/** The next look of the reversal watch (null: the watch is over), and whether the rail was asked this time. */
const NEXT_REVERSAL_CHECK = defineStatement({
  name: 'cowrie-next-reversal-check',
  params: { transactionId: sqlParam.int, next: sqlParam.timestamp.orNull, asked: sqlParam.int },
  text: (p) => `UPDATE "PayoutDispatch" SET "reversalCheckAt" = ${p.next}, "reversalChecks" = "reversalChecks" + ${p.asked}
           WHERE "transactionId" = ${p.transactionId}`,
});

/** The reversal watch's pass takes what the outcome checks' pass takes. */
export type CheckDueReversalsOptions = CheckDuePayoutsOptions;

/**
 * The reversal watch: asks the rail, by reference, whether a completed payout
 * was reversed, so a reversal is found even when the rail's notification is
 * lost. Each payout is looked at from `reversalFirstCheckMs` after it was
 * sent, then twice as long each time, and a last time when the watch ends
 * (`reversalWatchMs` after it settled): a handful of questions per payout,
 * whatever the volume. A reversal found is applied as a notification's would
 * be (applyRailResult: once, whoever gets there first). Still-processing
 * payouts are looked at again later; failed and reversed ones leave the watch.
 * Claimed with SKIP LOCKED, so replicas share the work.
 */
export async function checkDueReversals({
  sql,
  rails,
  schedule,
  log,
  now = new Date(),
  limit = 200,
  concurrency = 8,
  leaseMs = 60_000,
  signal,
}: CheckDueReversalsOptions) {
  const { rows: claimed } = await CLAIM_DUE_REVERSAL_CHECKS.run(sql, { now, leaseUntil: new Date(now.getTime() + leaseMs), limit });
  if (!claimed.length) return { checked: 0, reversed: 0 };
  const byId = await payoutsWithMode(
    sql,
    claimed.map((c) => c.transactionId),
  );
  let reversed = 0;
  const later = (checks: number) => new Date(now.getTime() + schedule.reversalFirstCheckMs * 2 ** Math.min(checks, 20));
  // Stopping: the checks not made keep their lease and are taken up after it.
  for (let i = 0; i < claimed.length && !signal?.aborted; i += concurrency) {
    await Promise.all(
      claimed.slice(i, i + concurrency).map(async (due) => {
        const found = byId.get(due.transactionId);
        const row = found?.row;
        if (!row || row.status === 'failed' || row.status === 'reversed') {
          return NEXT_REVERSAL_CHECK.run(sql, { transactionId: due.transactionId, next: null, asked: 0 });
        }
        if (row.status !== 'completed') return NEXT_REVERSAL_CHECK.run(sql, { transactionId: row.id, next: later(0), asked: 0 });
        try {
          // Asked of the rail that paid it, under the reference it was sent with there.
          const known = await rails[found.mode].byId(row.provider).verifyTransfer(railReferenceOf(row), { signal });
          if (known?.status === 'reversed') {
            const outcome = await applyRailResult(sql, row, known, schedule, log);
            if (outcome.kind === 'reversed') reversed += 1;
            log.warn({ reference: row.reference, outcome: outcome.kind }, 'the reversal watch found a completed payout reversed by its rail');
            return NEXT_REVERSAL_CHECK.run(sql, { transactionId: row.id, next: null, asked: 1 });
          }
        } catch (err) {
          log.warn({ transactionId: row.id, err }, 'reversal check failed; it is taken up again after its lease');
          return null;
        }
        const end = row.updatedAt.getTime() + schedule.reversalWatchMs;
        const next = now.getTime() >= end ? null : new Date(Math.min(end, later(due.reversalChecks + 1).getTime()));
        return NEXT_REVERSAL_CHECK.run(sql, { transactionId: row.id, next, asked: 1 });
      }),
    );
  }
  return { checked: claimed.length, reversed };
}

const EARLIER_ATTEMPT_COLUMNS = {
  transactionId: payoutDispatchColumns.transactionId,
  rail: sqlColumn.text,
  reference: sqlColumn.text,
};

/**
 * Claims the attempts of rails a payout moved on from (refused or failed
 * there; one a late answer already found is marked asked), and of payouts failed because
 * their rail never knew them (UNCONFIRMED), that have not been asked about
 * since, once the grace window has passed since the move or the failure:
 * each is claimed once (`checkedAt`), SKIP LOCKED, so replicas share them.
 */
const CLAIM_EARLIER_ATTEMPTS = defineStatement({
  name: 'cowrie-claim-earlier-payout-attempts',
  params: { now: sqlParam.timestamp, movedBefore: sqlParam.timestamp, limit: sqlParam.int },
  text: (p) => `UPDATE "PayoutAttempt" a SET "checkedAt" = ${p.now} FROM (
             SELECT e."transactionId", e."rail" FROM "PayoutAttempt" e JOIN "LedgerTransaction" t ON t."id" = e."transactionId"
             WHERE e."outcome" IN ('refused', 'failed', '${UNCONFIRMED}') AND e."checkedAt" IS NULL AND e."updatedAt" <= ${p.movedBefore}
               AND (t."provider" <> e."rail" OR e."outcome" = '${UNCONFIRMED}')
             ORDER BY e."updatedAt" LIMIT ${p.limit} FOR UPDATE OF e SKIP LOCKED) c
           WHERE a."transactionId" = c."transactionId" AND a."rail" = c."rail"
           RETURNING ${columnList(EARLIER_ATTEMPT_COLUMNS, 'a')}`,
  result: EARLIER_ATTEMPT_COLUMNS,
});

/** An attempt whose rail could not be asked: claimed again by a later pass. */
const UNCLAIM_EARLIER_ATTEMPT = defineStatement({
  name: 'cowrie-unclaim-earlier-payout-attempt',
  params: { transactionId: sqlParam.int, rail: sqlParam.text },
  text: (p) => `UPDATE "PayoutAttempt" SET "checkedAt" = NULL WHERE "transactionId" = ${p.transactionId} AND "rail" = ${p.rail}`,
});

/**
 * Asks the rail of each attempt a payout moved on from, once, after the grace
 * window (PAYOUT_UNKNOWN_GRACE_MS) since the move, whether it holds the
 * transfer after all; and the rail of a payout failed because it never knew
 * the reference (UNCONFIRMED), once, a grace window after the failure. A
 * payout moves or fails that way only when its rail certainly did not take
 * it, so this should never find one; when it does (a rail that refused and
 * then paid, or that surfaced a transfer late), nothing is moved
 * automatically: the attempt is kept as `found_after_move` or
 * `found_after_fail` with the rail's answer, logged as an error, and named in
 * `found` (one entry per find; the payout worker counts them in
 * cowrie_payout_found_after_move_total and cowrie_payout_found_after_fail_total),
 * for an operator to settle with the rail. A rail that cannot be asked is asked
 * again on a later pass.
 */
export async function checkEarlierAttempts({ sql, rails, schedule, log, now = new Date(), limit = 200, concurrency = 8, signal }: CheckDuePayoutsOptions) {
  const { rows: claimed } = await CLAIM_EARLIER_ATTEMPTS.run(sql, { now, movedBefore: new Date(now.getTime() - schedule.graceMs), limit });
  const found: FoundOnRail[] = [];
  if (!claimed.length) return { checked: 0, found };
  const byId = await payoutsWithMode(
    sql,
    claimed.map((c) => c.transactionId),
  );
  for (let i = 0; i < claimed.length; i += concurrency) {
    await Promise.all(
      claimed.slice(i, i + concurrency).map(async (attempt) => {
        const payout = byId.get(attempt.transactionId);
        if (!payout) return;
        // Stopping: claimed and not asked, so given back for a later pass.
        if (signal?.aborted) return UNCLAIM_EARLIER_ATTEMPT.run(sql, { transactionId: attempt.transactionId, rail: attempt.rail });
        try {
          const known = await rails[payout.mode].byId(attempt.rail).verifyTransfer(attempt.reference, { signal });
          if (!known || known.status === 'failed') return;
          const kept = await keepUnappliedRailAnswer(sql, payout.row, attempt.rail, known, log);
          if (kept) found.push({ rail: attempt.rail, outcome: kept });
        } catch (err) {
          log.warn({ transactionId: attempt.transactionId, rail: attempt.rail, err }, 'an earlier rail could not be asked about a payout; asking again later');
          await UNCLAIM_EARLIER_ATTEMPT.run(sql, { transactionId: attempt.transactionId, rail: attempt.rail });
        }
      }),
    );
  }
  return { checked: claimed.length, found };
}

const OLDEST_PROCESSING_PAYOUT_COLUMNS = { createdAt: ledgerTransactionColumns.createdAt };

/** The oldest `processing` payout's creation: the first entry of the (status, createdAt) index. */
const OLDEST_PROCESSING_PAYOUT = defineStatement({
  name: 'cowrie-oldest-processing-payout',
  params: {},
  text: () => `SELECT ${columnList(OLDEST_PROCESSING_PAYOUT_COLUMNS, 't')} FROM "LedgerTransaction" t
           WHERE t."status" = 'processing' AND t."type" = 'debit' ORDER BY t."createdAt" LIMIT 1`,
  result: OLDEST_PROCESSING_PAYOUT_COLUMNS,
});

/** Seconds since the oldest payout still `processing` was made; 0 when none is (the processing-age metric). */
export async function oldestProcessingPayoutAgeSeconds(sql: SqlQueryable, now = new Date()): Promise<number> {
  const { rows } = await OLDEST_PROCESSING_PAYOUT.run(sql, {});
  return rows[0] ? Math.max(0, (now.getTime() - rows[0].createdAt.getTime()) / 1000) : 0;
}

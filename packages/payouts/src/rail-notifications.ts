import type { Logger, Mode } from '@cowrie/core';
import { columnList, defineStatement, insertColumns, sqlColumn, sqlParam, type SqlPool, type UnmatchedPayoutEvent } from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';
import type { ModeRails } from '@cowrie/rails';
import { applyRailResult, keepUnappliedRailAnswer, type FoundLate, type FoundOnRail, type PayoutOutcome } from './payout-close';
import { failOver } from './execute-payout';
import { nextRailOf, payoutReferenceOf, payoutRoute, railReferenceOf } from './rail-route';

/** What a payout rail told Cowrie about one of its transfers, unprompted (a provider's webhook, the sandbox bank's notice). */
export interface PayoutNotification {
  /** The rail that sent it (a ledger row's `provider`). */
  provider: string;
  /** The rail's event name, e.g. `transfer.reversed`. */
  event: string;
  /** The transfer's reference at the rail: Cowrie's `snd_` reference (`snd_…-<n>` for a payout's n-th rail). */
  reference: string;
  /** The notification as received, kept when it names no payout Cowrie knows. */
  payload: Record<string, unknown>;
}

/**
 * What came of a notification: `applied` (the rail's confirmed state was
 * applied; `outcome` says what changed, `skipped` when nothing did),
 * `unmatched` (no payout of that rail has the reference: kept for review,
 * never credited), `unconfirmed` (the rail does not show the transfer when
 * asked: nothing changed; the reconciler asks again on its schedule). `found`
 * names the rail whose answer was kept for an operator (counted in
 * cowrie_payout_found_after_move_total / _fail_total).
 */
export type PayoutNotificationOutcome = ({ kind: 'applied'; outcome: PayoutOutcome['kind'] } | { kind: 'unmatched' } | { kind: 'unconfirmed' }) & {
  found?: FoundOnRail;
};

const PAYOUT_BY_REFERENCE = defineStatement({
  name: 'cowrie-payout-by-reference',
  params: { reference: sqlParam.text },
  text: (
    p,
  ) => `SELECT ${columnList(ledgerTransactionColumns, 't')}, w."mode" AS "workspaceMode" FROM "LedgerTransaction" t JOIN "Workspace" w ON w."id" = t."workspaceId"
           WHERE t."reference" = ${p.reference} AND t."type" = 'debit'`,
  result: { ...ledgerTransactionColumns, workspaceMode: sqlColumn.text.as<Mode>() },
});

const KEEP_UNMATCHED = defineStatement({
  name: 'cowrie-keep-unmatched-payout-event',
  params: { provider: sqlParam.text, event: sqlParam.text, reference: sqlParam.text, payload: sqlParam.json },
  text: (p) => `INSERT INTO "UnmatchedPayoutEvent" (${insertColumns<UnmatchedPayoutEvent>()('provider', 'event', 'reference', 'payload')})
           VALUES (${p.provider}, ${p.event}, ${p.reference}, ${p.payload})
           ON CONFLICT ("provider", "event", "reference") DO UPDATE SET "received" = "UnmatchedPayoutEvent"."received" + 1`,
});

/**
 * A payout rail's notification about one of its transfers. The notification
 * only says which payout to look at: what is applied is what the rail answers
 * when asked by reference (its verify), the same answer the worker and the
 * reconciler act on, so a notification delivered many times, late, out of
 * order, or racing the reconciler changes the payout at most once (every
 * close is gated on the row's status). A reference no payout of that rail has
 * is logged and kept for review (UnmatchedPayoutEvent), never credited. A rail
 * that cannot be asked throws: the caller answers so the provider retries.
 */
export async function receivePayoutNotification(
  { sql, rails, log }: { sql: SqlPool; rails: ModeRails; log: Logger },
  notification: PayoutNotification,
): Promise<PayoutNotificationOutcome> {
  const found = (await PAYOUT_BY_REFERENCE.run(sql, { reference: payoutReferenceOf(notification.reference) })).rows[0];
  // Only the payout's current rail, under the reference it was sent with there: an earlier rail certainly did not take it.
  if (!found || found.provider !== notification.provider || railReferenceOf(found) !== notification.reference) {
    // About the attempt of a rail the payout moved on from: that rail is asked; if it holds the transfer after all, it is kept on the attempt.
    let kept: FoundLate | null = null;
    if (found && payoutRoute(found).rails.includes(notification.provider) && railReferenceOf(found, notification.provider) === notification.reference) {
      const known = await rails[found.workspaceMode].byId(notification.provider).verifyTransfer(notification.reference);
      if (known) kept = await keepUnappliedRailAnswer(sql, found, notification.provider, known, log);
    }
    await KEEP_UNMATCHED.run(sql, notification);
    log.warn(
      { provider: notification.provider, event: notification.event, reference: notification.reference },
      'a payout rail notified about a transfer Cowrie does not know: kept for review, nothing credited',
    );
    return kept ? { kind: 'unmatched', found: { rail: notification.provider, outcome: kept } } : { kind: 'unmatched' };
  }
  const { workspaceMode, ...row } = found;
  const known = await rails[workspaceMode].byId(row.provider).verifyTransfer(notification.reference);
  // Nothing to apply: the rail does not show it, or shows it unsettled while Cowrie's row is settled
  // (a failed row's transfer shown pending goes on: the rail holds it, and applyRailResult keeps that).
  if (!known || (known.status === 'pending' && row.status !== 'processing' && row.status !== 'failed')) {
    log.warn({ reference: row.reference, event: notification.event, rail: known?.status ?? 'not found' }, 'payout notification not confirmed by the rail');
    return { kind: 'unconfirmed' };
  }
  // The rail's own definite failure of a payout with another rail to go: moved there (the re-queue pass sends it), not failed.
  const next = known.status === 'failed' && known.failure === 'rail' && row.status === 'processing' ? nextRailOf(row) : null;
  if (next) {
    const moved = await failOver(sql, row, next, { outcome: 'failed', reason: known.reason ?? 'the rail failed the transfer' });
    log.warn(
      { reference: row.reference, from: row.provider, to: next, moved: !!moved },
      'payout notification: the rail failed it on its own; moved to the next rail',
    );
    return { kind: 'applied', outcome: moved ? 'pending' : 'skipped' };
  }
  const outcome = await applyRailResult(sql, row, known, undefined, log);
  log.info({ reference: row.reference, event: notification.event, outcome: outcome.kind }, 'payout notification applied');
  return outcome.kind === 'skipped' && outcome.found
    ? { kind: 'applied', outcome: outcome.kind, found: outcome.found }
    : { kind: 'applied', outcome: outcome.kind };
}

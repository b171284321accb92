import { enqueueAndWait, type JobChannel, type Logger } from '@cowrie/core';
import { createTransfer, createWithdrawal, type CreatedPayout, type PayoutDeps, type TransferInput, type WithdrawalInput } from './payout-open';
import { payoutAnswerFromOutcome, readPayoutAnswer, type OutcomeUnknownDetails, type PayoutAnswer } from './payout-outcome';
import { payoutJobId, payoutsQueue } from './queue';
import type { RenderedTransaction } from './render';

/** What a payout is: to a bank account (a transfer) or to a saved beneficiary (a withdrawal). */
export type PayoutKind = 'transfer' | 'withdrawal';

export interface SubmitPayoutDeps extends PayoutDeps {
  /** The payouts queue and its events. */
  channel: JobChannel;
  /** PAYOUT_SYNC_WAIT_MS: how long the caller waits for the worker's outcome. */
  syncWaitMs: number;
  /** The request's logger. */
  log: Logger;
  /**
   * Hears of each payout this call opened (not of a replay that found one),
   * once its row and hold have committed and before its job is queued (the
   * dashboard's audit trail).
   */
  onOpened?: (payout: CreatedPayout['transaction'], kind: PayoutKind) => Promise<void>;
}

/** A payout to open: a transfer's or a withdrawal's input, with its kind. */
export type PayoutSubmission = ({ kind: 'transfer' } & TransferInput) | ({ kind: 'withdrawal' } & WithdrawalInput);

/**
 * What submitting a payout found, read from the worker's outcome or, when
 * there is none (the wait ended, the job failed, Redis refused the add),
 * from Postgres:
 * - `answered`: the payout's row as it stands: as the rail left it
 *   (completed, or failed without a rail error to answer), or still
 *   `processing` (the wait ended first: a `transfer.*` event follows);
 * - `rail_error`: the rail threw: the failed row, kept; or, with `details`
 *   (`outcome: 'unknown'`), the `processing` row with its hold, whose outcome
 *   the rail has not confirmed yet.
 * A pre-flight refusal (currency, wallet, balance, beneficiary) is thrown
 * before anything is held, as createTransfer and createWithdrawal throw it.
 */
export type SubmitPayoutOutcome =
  | { kind: 'answered'; transaction: RenderedTransaction }
  | { kind: 'rail_error'; transaction: RenderedTransaction; status: number; message: string; details?: OutcomeUnknownDetails };

/**
 * A payout as the API sends it (docs/design.md: synchronous answers): its
 * row and hold committed first (createTransfer, createWithdrawal), then
 * awaitPayout.
 */
export async function submitPayout(deps: SubmitPayoutDeps, input: PayoutSubmission): Promise<SubmitPayoutOutcome> {
  const payout = input.kind === 'transfer' ? await createTransfer(deps, input) : await createWithdrawal(deps, input);
  return awaitPayout(deps, payout, input.kind);
}

/**
 * The rest of a payout's submission once it is opened (submitPayout, or an
 * approved payout request): a payout this call opened is announced
 * (onOpened), its job queued after the commit, and the worker waited for up
 * to `syncWaitMs`; its outcome carries the committed row. A replay that found
 * an existing payout, or a wait without an outcome, reads the answer from
 * Postgres.
 */
export async function awaitPayout(deps: SubmitPayoutDeps, payout: CreatedPayout, kind: PayoutKind): Promise<SubmitPayoutOutcome> {
  const id = payout.transaction.id;
  let answer: PayoutAnswer | null = null;
  if (payout.created) {
    if (deps.onOpened) await deps.onOpened(payout.transaction, kind);
    const run = await enqueueAndWait(
      deps.channel,
      payoutsQueue,
      'payout.execute',
      { transactionId: id },
      { jobId: payoutJobId(payout.transaction), waitMs: deps.syncWaitMs },
    );
    if (run.kind === 'completed') answer = payoutAnswerFromOutcome(run.value);
    // Redis unreachable (the reconciler queues it later): Postgres says where the payout stands.
    else if (run.kind === 'not_queued') deps.log.info({ transactionId: id, reason: run.error.message }, 'payout outcome read from Postgres');
  }
  answer ??= await readPayoutAnswer(deps.sql, id);
  if (!answer.providerError) return { kind: 'answered', transaction: answer.transaction };
  return { kind: 'rail_error', transaction: answer.transaction, ...answer.providerError };
}

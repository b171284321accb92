import { columnList, defineStatement, sqlParam, type SqlQueryable } from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';
import { payoutDispatchColumns } from './payout-dispatch-columns';
import { renderTransaction, type RenderedTransaction } from './render';
import { OUTCOME_UNKNOWN_MESSAGE, type PayoutOutcome } from './payout-close';

export interface PayoutAnswer {
  transaction: RenderedTransaction;
  /**
   * Set when the rail threw: the API answers this provider error with the
   * failed row kept, or, when the outcome is unknown, with the `processing`
   * row and `details` saying it is being confirmed.
   */
  providerError?: { status: number; message: string; details?: OutcomeUnknownDetails };
}

/** What `error.details` says of a payout whose outcome the rail has not confirmed yet. */
export interface OutcomeUnknownDetails {
  outcome: 'unknown';
  reference: string;
  message: string;
}

const unknownDetails = (transaction: RenderedTransaction): OutcomeUnknownDetails => ({
  outcome: 'unknown',
  reference: transaction.reference,
  message: OUTCOME_UNKNOWN_MESSAGE,
});

const PAYOUT_ANSWER_COLUMNS = {
  dispatchOutcome: payoutDispatchColumns.outcome,
  dispatchErrorStatus: payoutDispatchColumns.errorStatus,
  dispatchErrorMessage: payoutDispatchColumns.errorMessage,
};

const PAYOUT_ANSWER = defineStatement({
  name: 'cowrie-payout-answer',
  params: { transactionId: sqlParam.int },
  text: (p) => `SELECT ${columnList(ledgerTransactionColumns, 't')}, ${columnList(PAYOUT_ANSWER_COLUMNS, 'd')}
           FROM "LedgerTransaction" t LEFT JOIN "PayoutDispatch" d ON d."transactionId" = t."id" WHERE t."id" = ${p.transactionId}`,
  result: { ...ledgerTransactionColumns, ...PAYOUT_ANSWER_COLUMNS },
});

/**
 * What the API answers for a payout, read from Postgres (the source of truth,
 * whatever the queue said): the row, and the provider error when the rail threw.
 */
export async function readPayoutAnswer(sql: SqlQueryable, transactionId: number): Promise<PayoutAnswer> {
  const { rows } = await PAYOUT_ANSWER.run(sql, { transactionId });
  const found = rows[0];
  if (!found) throw new Error(`payout ${transactionId} does not exist`);
  const { dispatchOutcome, dispatchErrorStatus, dispatchErrorMessage, ...row } = found;
  const transaction = renderTransaction(row);
  if (row.status === 'failed' && dispatchOutcome === 'provider_error') {
    return { transaction, providerError: { status: dispatchErrorStatus ?? 502, message: dispatchErrorMessage ?? 'The payout rail failed' } };
  }
  if (row.status === 'processing' && dispatchOutcome === 'unknown') {
    return {
      transaction,
      providerError: {
        status: dispatchErrorStatus ?? 504,
        message: dispatchErrorMessage ?? 'The payout rail did not answer',
        details: unknownDetails(transaction),
      },
    };
  }
  return { transaction };
}

/**
 * The answer from the worker's outcome when it settled the payout (the row it
 * committed); null when it did not (skipped, pending, or no outcome), and the
 * answer must be read from Postgres.
 */
export function payoutAnswerFromOutcome(outcome: PayoutOutcome | null | undefined): PayoutAnswer | null {
  if (!outcome || !('transaction' in outcome)) return null;
  if (outcome.kind === 'provider_error') return { transaction: outcome.transaction, providerError: { status: outcome.status, message: outcome.message } };
  if (outcome.kind === 'unknown')
    return {
      transaction: outcome.transaction,
      providerError: { status: outcome.status, message: outcome.message, details: unknownDetails(outcome.transaction) },
    };
  return { transaction: outcome.transaction };
}

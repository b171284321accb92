import type { SqlQueryable } from '@cowrie/db';
import { ledgerTransactionFromSql } from '@cowrie/ledger';
import { renderTransaction, type TRenderedTransaction } from './render';
import { OUTCOME_UNKNOWN_MESSAGE, type TPayoutOutcome } from './settle-payout';

export interface PayoutAnswer {
  transaction: TRenderedTransaction;
  /**
   * Set when the rail threw: the API answers this provider error with the
   * failed row kept, or, when the outcome is unknown, with the `processing`
   * row and `details` saying it is being confirmed.
   */
  providerError?: { status: number; message: string; details?: TOutcomeUnknownDetails };
}

/** What `error.details` says of a payout whose outcome the rail has not confirmed yet. */
export interface TOutcomeUnknownDetails {
  outcome: 'unknown';
  reference: string;
  message: string;
}

const unknownDetails = (transaction: TRenderedTransaction): TOutcomeUnknownDetails => ({
  outcome: 'unknown',
  reference: transaction.reference,
  message: OUTCOME_UNKNOWN_MESSAGE,
});

/**
 * What the API answers for a payout, read from Postgres (the source of truth,
 * whatever the queue said): the row, and the provider error when the rail threw.
 */
export async function readPayoutAnswer(sql: SqlQueryable, transactionId: number): Promise<PayoutAnswer> {
  const { rows } = await sql.query<
    Record<string, unknown> & { dispatchOutcome: string | null; dispatchErrorStatus: number | null; dispatchErrorMessage: string | null }
  >({
    name: 'cowrie-payout-answer',
    text: `SELECT t.*, d."outcome" AS "dispatchOutcome", d."errorStatus" AS "dispatchErrorStatus", d."errorMessage" AS "dispatchErrorMessage"
           FROM "LedgerTransaction" t LEFT JOIN "PayoutDispatch" d ON d."transactionId" = t."id" WHERE t."id" = $1`,
    values: [transactionId],
  });
  const found = rows[0];
  if (!found) throw new Error(`payout ${transactionId} does not exist`);
  const { dispatchOutcome, dispatchErrorStatus, dispatchErrorMessage, ...row } = found;
  const transaction = renderTransaction(ledgerTransactionFromSql(row));
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
export function payoutAnswerFromOutcome(outcome: TPayoutOutcome | null | undefined): PayoutAnswer | null {
  if (!outcome || !('transaction' in outcome)) return null;
  if (outcome.kind === 'provider_error') return { transaction: outcome.transaction, providerError: { status: outcome.status, message: outcome.message } };
  if (outcome.kind === 'unknown')
    return {
      transaction: outcome.transaction,
      providerError: { status: outcome.status, message: outcome.message, details: unknownDetails(outcome.transaction) },
    };
  return { transaction: outcome.transaction };
}

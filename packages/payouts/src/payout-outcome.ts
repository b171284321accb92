import type { DbOrTx } from '@cowrie/db';
import { renderTransaction, type TRenderedTransaction } from './render';

export interface PayoutAnswer {
  transaction: TRenderedTransaction;
  /** Set when the rail threw: the API answers this provider error with the failed row kept. */
  providerError?: { status: number; message: string };
}

/**
 * What the API answers for a payout, read from Postgres (the source of truth,
 * whatever the queue said): the row, and the provider error when the rail threw.
 */
export async function readPayoutAnswer(db: DbOrTx, transactionId: number): Promise<PayoutAnswer> {
  const [row, dispatch] = await Promise.all([
    db.ledgerTransaction.findUniqueOrThrow({ where: { id: transactionId } }),
    db.payoutDispatch.findUnique({ where: { transactionId } }),
  ]);
  const transaction = renderTransaction(row);
  if (row.status === 'failed' && dispatch?.outcome === 'provider_error') {
    return { transaction, providerError: { status: dispatch.errorStatus ?? 502, message: dispatch.errorMessage ?? 'The payout rail failed' } };
  }
  return { transaction };
}

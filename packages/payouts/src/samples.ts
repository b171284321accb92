import { Decimal } from '@cowrie/core';
import type { LedgerTransaction, Prisma } from '@cowrie/db';
import { newReference, newReversalReference } from '@cowrie/ledger';
import { SANDBOX_FAIL_ACCOUNT, sandboxReturnedResult, sandboxTransferResult } from '@cowrie/rails';
import { DEFAULT_TRANSFER_NARRATION } from './payout-open';
import { renderTransaction, type RenderedTransaction } from './render';

/** The transfer events a payout ends with. */
export type TransferEventStatus = 'completed' | 'failed' | 'reversed';

/**
 * A sample `data` of transfer.completed, .failed or .reversed, for the webhook
 * trigger test helper: a 1,500 NGN transfer through the sandbox rail as its
 * event carries it (renderTransaction of the row, the sandbox bank's answer
 * under metadata.raw), with fresh references, of no row in the ledger.
 */
export function sampleTransferEventData(status: TransferEventStatus, opts: { workspaceId: number; now?: Date }): RenderedTransaction {
  const now = opts.now ?? new Date();
  const reference = newReference('snd');
  const accountNumber = status === 'failed' ? SANDBOX_FAIL_ACCOUNT : '0123456789';
  const amount = new Decimal('1500');
  const sent = sandboxTransferResult({ reference, amount, currency: 'NGN', accountNumber, bankCode: '058', accountName: null });
  const result = status === 'reversed' ? sandboxReturnedResult(sent) : sent;
  const accountName = sent.accountName ?? null;
  const row: LedgerTransaction = {
    id: 0,
    workspaceId: opts.workspaceId,
    walletId: 0,
    type: 'debit',
    direction: 'out',
    category: 'send',
    channel: 'transfer',
    status,
    reference,
    idempotencyKey: reference,
    currency: 'NGN',
    amount,
    fees: new Decimal('0'),
    title: `Transfer to ${accountName ?? accountNumber}`,
    description: DEFAULT_TRANSFER_NARRATION,
    provider: 'sandbox',
    providerReference: result.providerReference,
    counterpartyName: accountName,
    counterpartyAccount: accountNumber,
    counterpartyBank: 'Guaranty Trust Bank',
    counterpartyEmail: null,
    bankCode: '058',
    beneficiaryId: null,
    metadata: {
      provider: 'sandbox',
      raw: result.raw,
      ...(status === 'reversed' ? { reversed_by: newReversalReference() } : {}),
    } as Prisma.JsonObject,
    requestKey: null,
    requestHash: null,
    createdAt: new Date(now.getTime() - 2_000),
    updatedAt: now,
  };
  return renderTransaction(row);
}

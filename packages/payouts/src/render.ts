import { asObject, formatAmount } from '@cowrie/core';
import type { Beneficiary, LedgerTransaction } from '@cowrie/db';

/**
 * A ledger transaction as the API shows it: camelCase, amounts as
 * 6-digit decimal strings, `metadata` always carrying `provider` and `raw`.
 */
export function renderTransaction(row: LedgerTransaction) {
  const metadata = asObject(row.metadata);
  return {
    id: row.id,
    type: row.type,
    direction: row.direction,
    category: row.category,
    channel: row.channel,
    status: row.status,
    reference: row.reference,
    idempotencyKey: row.idempotencyKey,
    businessId: row.workspaceId,
    walletId: row.walletId,
    currency: row.currency,
    amount: formatAmount(row.amount),
    fees: formatAmount(row.fees),
    title: row.title,
    description: row.description,
    provider: row.provider,
    providerReference: row.providerReference,
    counterpartyName: row.counterpartyName,
    counterpartyAccount: row.counterpartyAccount,
    counterpartyBank: row.counterpartyBank,
    counterpartyEmail: row.counterpartyEmail,
    // `metadata.provider` is the rail's name the ledger wrote with the row: a string, as the transfer events' data promises.
    metadata: { ...metadata, provider: (metadata.provider ?? row.provider) as string, raw: asObject(metadata.raw) },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type RenderedTransaction = ReturnType<typeof renderTransaction>;

/** A beneficiary record (docs/design.md: Records and decisions of our own), snake_case. */
export function renderBeneficiary(row: Beneficiary) {
  return {
    id: row.id,
    name: row.name,
    account_number: row.accountNumber,
    bank_code: row.bankCode,
    bank_name: row.bankName,
    currency: row.currency,
    active: row.active,
    created_at: row.createdAt.toISOString(),
  };
}

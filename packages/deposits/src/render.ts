import { formatAmount } from '@cowrie/core';
import type { Collection, ReservedAccount } from '@cowrie/db';

/** `account` of a deposit result; `expires_at` for one-off accounts only. */
export function renderDepositAccount(row: Collection | ReservedAccount) {
  const account = { bank: row.bankName, bank_code: row.bankCode, account_number: row.accountNumber, account_name: row.accountName };
  return 'expiresAt' in row ? { ...account, expires_at: row.expiresAt.toISOString() } : account;
}

/** A collection as GET /v1/collections/:id returns it (snake_case, amounts as 6-digit strings). */
export function renderCollection(row: Collection) {
  return {
    id: row.id,
    reference: row.reference,
    status: row.status,
    currency: row.currency,
    amount: formatAmount(row.amount),
    amount_paid: row.amountPaid === null ? null : formatAmount(row.amountPaid),
    customer: row.customerName === null ? null : { name: row.customerName, email: row.customerEmail },
    account: renderDepositAccount(row),
    expires_at: row.expiresAt.toISOString(),
    paid_at: row.paidAt?.toISOString() ?? null,
    provider: row.provider,
    provider_reference: row.providerReference,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A reserved account as /v1/reserved-accounts returns it. */
export function renderReservedAccount(row: ReservedAccount) {
  return {
    id: row.id,
    reference: row.reference,
    holder: row.holder,
    status: row.status,
    currency: row.currency,
    customer: { name: row.customerName, email: row.customerEmail },
    account: renderDepositAccount(row),
    provider: row.provider,
    created_at: row.createdAt.toISOString(),
  };
}

/** `data` of the collection.successful event. */
export function collectionSuccessfulPayload(input: {
  id: number;
  reference: string;
  channel: 'collection_va' | 'reserved_va';
  amount: string;
  currency: string;
  accountNumber: string;
  providerReference: string;
  paidAt: Date;
}) {
  return {
    id: input.id,
    reference: input.reference,
    amount: input.amount,
    currency: input.currency,
    account_number: input.accountNumber,
    provider_reference: input.providerReference,
    channel: input.channel,
    paid_at: input.paidAt.toISOString(),
  };
}

import { formatAmount } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

export interface ListInboundPaymentsQuery {
  /** `unmatched` (held for an operator) or `credited`; all when absent. */
  status?: 'unmatched' | 'credited';
  limit: number;
}

/**
 * The transfers collection rails reported, newest first: what an operator
 * reviews when money arrived that credited nobody (an unknown or ambiguous
 * account, a wrong amount or currency, a closed collection).
 */
export async function listInboundPayments(db: PrismaClient, query: ListInboundPaymentsQuery) {
  const rows = await db.inboundPayment.findMany({ where: { status: query.status }, orderBy: { id: 'desc' }, take: query.limit });
  return rows.map((r) => ({
    id: r.id,
    provider: r.provider,
    provider_reference: r.providerReference,
    account_number: r.accountNumber,
    amount: formatAmount(r.amount),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    workspace_id: r.workspaceId,
    collection_id: r.collectionId,
    reserved_account_id: r.reservedAccountId,
    sender_name: r.senderName,
    created_at: r.createdAt.toISOString(),
  }));
}

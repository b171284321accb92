import { formatAmount, type Mode } from '@cowrie/core';
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

/**
 * The modes of the workspaces whose accounts on `provider` hold
 * `accountNumber` (reserved accounts and one-off collections, open or not):
 * what `cowrie sandbox transfer-in` checks in production, where it may only
 * ever credit test data.
 */
export async function modesHoldingAccount(db: PrismaClient, provider: string, accountNumber: string): Promise<Mode[]> {
  const where = { provider, accountNumber };
  const [reserved, collections] = await Promise.all([
    db.reservedAccount.findMany({ where, select: { workspaceId: true } }),
    db.collection.findMany({ where, select: { workspaceId: true } }),
  ]);
  const ids = [...new Set([...reserved, ...collections].map((r) => r.workspaceId))];
  if (!ids.length) return [];
  const workspaces = await db.workspace.findMany({ where: { id: { in: ids } }, select: { mode: true } });
  return [...new Set(workspaces.map((w) => w.mode as Mode))];
}

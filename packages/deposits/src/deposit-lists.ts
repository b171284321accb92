import { decodePageCursor, formatAmount, newestFirst, pageLimit, pageOf, rowsAfter } from '@cowrie/core';
import type { DbOrTx, InboundPayment } from '@cowrie/db';
import { renderCollection } from './render';

export const COLLECTION_STATUSES = ['pending', 'successful', 'expired'] as const;

export interface ListCollectionsInput {
  workspaceId: number;
  status?: (typeof COLLECTION_STATUSES)[number];
  /** Default 20, at most 100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/**
 * A workspace's one-off collections, newest first, a page at a time, as GET
 * /v1/collections/:id shows each. A pending row past its time is listed as
 * stored: reading it (GET /v1/collections/:id) is what expires it.
 */
export async function listCollections(db: DbOrTx, input: ListCollectionsInput) {
  const limit = pageLimit(input.limit);
  const rows = await db.collection.findMany({
    where: {
      workspaceId: input.workspaceId,
      ...(input.status ? { status: input.status } : {}),
      ...(input.cursor ? rowsAfter(decodePageCursor(input.cursor)) : {}),
    },
    orderBy: newestFirst(),
    take: limit + 1,
  });
  return pageOf(rows, limit, renderCollection);
}

export interface ListDepositPaymentsInput {
  workspaceId: number;
  /** Only the payments into this collection, or this reserved account. */
  collectionId?: number;
  reservedAccountId?: number;
  limit?: number;
  cursor?: string;
}

/** A transfer into one of the workspace's accounts, as the dashboard shows it. */
function renderDepositPayment(row: InboundPayment, transactionReference: string | null) {
  return {
    id: row.id,
    status: row.status,
    reason: row.reason,
    amount: formatAmount(row.amount),
    currency: row.currency,
    account_number: row.accountNumber,
    collection_id: row.collectionId,
    reserved_account_id: row.reservedAccountId,
    /** The credit in the ledger (GET /transactions) when it was credited. */
    transaction_reference: transactionReference,
    provider: row.provider,
    provider_reference: row.providerReference,
    sender_name: row.senderName,
    sender_bank: row.senderBank,
    narration: row.narration,
    created_at: row.createdAt.toISOString(),
  };
}

export type DepositPayment = ReturnType<typeof renderDepositPayment>;

/**
 * The transfers the collection rail reported into the workspace's accounts,
 * newest first: those credited, and those held back (a wrong amount, a
 * collection already paid or expired) with their reason.
 */
export async function listDepositPayments(db: DbOrTx, input: ListDepositPaymentsInput) {
  const limit = pageLimit(input.limit);
  const rows = await db.inboundPayment.findMany({
    where: {
      workspaceId: input.workspaceId,
      ...(input.collectionId ? { collectionId: input.collectionId } : {}),
      ...(input.reservedAccountId ? { reservedAccountId: input.reservedAccountId } : {}),
      ...(input.cursor ? rowsAfter(decodePageCursor(input.cursor)) : {}),
    },
    orderBy: newestFirst(),
    take: limit + 1,
  });
  const credited = rows.flatMap((r) => (r.ledgerTransactionId === null ? [] : [r.ledgerTransactionId]));
  const references = new Map(
    (await db.ledgerTransaction.findMany({ where: { id: { in: credited } }, select: { id: true, reference: true } })).map((t) => [t.id, t.reference]),
  );
  return pageOf(rows, limit, (row) => renderDepositPayment(row, row.ledgerTransactionId === null ? null : (references.get(row.ledgerTransactionId) ?? null)));
}

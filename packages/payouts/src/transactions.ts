import { AppError } from '@cowrie/core';
import type { DbOrTx, Prisma } from '@cowrie/db';
import { renderTransaction } from './render';

export const TRANSACTION_STATUSES = ['processing', 'completed', 'failed', 'reversed'] as const;

export interface ListTransactionsInput {
  workspaceId: number;
  /** Default 20, at most 100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  status?: (typeof TRANSACTION_STATUSES)[number];
  currency?: string;
}

// The cursor is the (createdAt, id) of the last row of a page, opaque to clients.
const encodeCursor = (createdAt: Date, id: number) => Buffer.from(JSON.stringify([createdAt.getTime(), id])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: number } {
  try {
    const [ms, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(ms) && Number.isSafeInteger(id)) return { createdAt: new Date(ms as number), id: id as number };
  } catch {
    // fall through
  }
  throw new AppError('invalid_request', 'cursor: not a cursor returned by this endpoint', { details: { field: 'cursor' } });
}

/** GET /v1/transactions: newest first, cursor paginated, filtered by status and currency. */
export async function listTransactions(db: DbOrTx, input: ListTransactionsInput) {
  const limit = Math.min(Math.max(input.limit ?? 20, 1), 100);
  const where: Prisma.LedgerTransactionWhereInput = { workspaceId: input.workspaceId };
  if (input.status) where.status = input.status;
  if (input.currency) where.currency = input.currency.trim().toUpperCase();
  if (input.cursor) {
    const after = decodeCursor(input.cursor);
    where.OR = [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }];
  }
  const rows = await db.ledgerTransaction.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(renderTransaction),
    nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}

interface RecipientRow {
  name: string | null;
  account_number: string;
  bank_code: string | null;
  bank_name: string | null;
  currency: string;
  last_sent_at: Date;
  payouts: bigint;
}

/**
 * GET /v1/recipients: the distinct accounts this workspace has paid (or is
 * paying), one per (account, bank, currency) with the latest name used,
 * most recent first. Payouts that failed are not recipients.
 */
export async function listRecipients(db: DbOrTx, workspaceId: number, limit = 100) {
  const rows = await db.$queryRaw<RecipientRow[]>`
    SELECT * FROM (
      SELECT DISTINCT ON ("counterpartyAccount", COALESCE("bankCode", ''), "currency")
        "counterpartyName" AS name, "counterpartyAccount" AS account_number, "bankCode" AS bank_code,
        "counterpartyBank" AS bank_name, "currency", "createdAt" AS last_sent_at,
        COUNT(*) OVER (PARTITION BY "counterpartyAccount", COALESCE("bankCode", ''), "currency") AS payouts
      FROM "LedgerTransaction"
      WHERE "workspaceId" = ${workspaceId} AND "type" = 'debit' AND "status" <> 'failed' AND "counterpartyAccount" IS NOT NULL
      ORDER BY "counterpartyAccount", COALESCE("bankCode", ''), "currency", "createdAt" DESC
    ) r
    ORDER BY last_sent_at DESC
    LIMIT ${limit}`;
  return rows.map((r) => ({
    name: r.name,
    account_number: r.account_number,
    bank_code: r.bank_code,
    bank_name: r.bank_name,
    currency: r.currency,
    payouts: Number(r.payouts),
    last_sent_at: r.last_sent_at.toISOString(),
  }));
}

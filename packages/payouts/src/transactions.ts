import { AppError, asObject, csvText, decodePageCursor, encodePageCursor, newestFirst, pageLimit, pageOf, pagedCsv, rowsAfter } from '@cowrie/core';
import { Prisma, insensitiveContains, type DbOrTx, type LedgerTransaction } from '@cowrie/db';
import { TRANSACTION_STATUSES, type WebhookEventName } from '@cowrie/events';
import { renderTransaction } from './render';
import { UNCONFIRMED } from './payout-close';

/** A ledger transaction's statuses (declared with the transfer events' data, which carries one). */
export { TRANSACTION_STATUSES };
export const TRANSACTION_TYPES = ['debit', 'credit'] as const;

/** Which transactions a list or an export holds. */
export interface TransactionFilters {
  status?: (typeof TRANSACTION_STATUSES)[number];
  currency?: string;
  type?: (typeof TRANSACTION_TYPES)[number];
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  /** Words of a reference (Cowrie's, the client's or the rail's) or of the counterparty's name or account. */
  search?: string;
}

export interface ListTransactionsInput extends TransactionFilters {
  workspaceId: number;
  /** Default 20, at most 100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/** The rows of a workspace the filters keep. */
function filtered(workspaceId: number, filters: TransactionFilters): Prisma.LedgerTransactionWhereInput {
  const where: Prisma.LedgerTransactionWhereInput = { workspaceId };
  if (filters.status) where.status = filters.status;
  if (filters.currency) where.currency = filters.currency.trim().toUpperCase();
  if (filters.type) where.type = filters.type;
  if (filters.from || filters.to) where.createdAt = { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lt: filters.to } : {}) };
  const search = filters.search?.trim();
  if (search) {
    where.AND = [
      {
        OR: [
          { reference: insensitiveContains(search) },
          { idempotencyKey: insensitiveContains(search) },
          { providerReference: insensitiveContains(search) },
          { counterpartyName: insensitiveContains(search) },
          { counterpartyAccount: insensitiveContains(search) },
        ],
      },
    ];
  }
  return where;
}

/** GET /v1/transactions: newest first, cursor paginated, filtered. */
export async function listTransactions(db: DbOrTx, input: ListTransactionsInput) {
  const limit = pageLimit(input.limit);
  const where = filtered(input.workspaceId, input);
  if (input.cursor) Object.assign(where, rowsAfter(decodePageCursor(input.cursor)));
  const rows = await db.ledgerTransaction.findMany({ where, orderBy: newestFirst(), take: limit + 1 });
  return pageOf(rows, limit, renderTransaction);
}

/** The columns of a transactions export, in order. */
const CSV_COLUMNS = [
  'reference',
  'created_at',
  'type',
  'direction',
  'category',
  'channel',
  'status',
  'currency',
  'amount',
  'fees',
  'counterparty_name',
  'counterparty_account',
  'counterparty_bank',
  'provider',
  'provider_reference',
  'idempotency_key',
  'title',
  'description',
] as const;

/** Rows read per statement while exporting. */

/** One transaction as an export's row: amounts exactly as the API renders them, text a spreadsheet will not run. */
function csvRecord(row: LedgerTransaction): string[] {
  const t = renderTransaction(row);
  return [
    csvText(t.reference),
    t.createdAt,
    t.type,
    t.direction,
    t.category,
    t.channel,
    t.status,
    t.currency,
    t.amount,
    t.fees,
    csvText(t.counterpartyName),
    csvText(t.counterpartyAccount),
    csvText(t.counterpartyBank),
    csvText(t.provider),
    csvText(t.providerReference),
    csvText(t.idempotencyKey),
    csvText(t.title),
    csvText(t.description),
  ];
}

/**
 * The filtered transactions as CSV text (RFC 4180, a header line first),
 * newest first, a page of rows at a time: the caller writes each chunk as it
 * comes, so an export of any size holds one page in memory.
 */
export async function* transactionsCsv(db: DbOrTx, input: TransactionFilters & { workspaceId: number }): AsyncGenerator<string> {
  const where = filtered(input.workspaceId, input);
  yield* pagedCsv({
    columns: CSV_COLUMNS,
    record: csvRecord,
    page: (after, size) => db.ledgerTransaction.findMany({ where: after ? { AND: [where, rowsAfter(after)] } : where, orderBy: newestFirst(), take: size }),
  });
}

interface RecipientRow {
  name: string | null;
  account_number: string;
  bank_code: string | null;
  bank_name: string | null;
  currency: string;
  last_sent_at: Date;
  last_id: number;
  payouts: bigint;
}

/**
 * Rows per page of GET /v1/recipients, when `limit` is not given and at most:
 * the list answered its first 100 rows before it paged, and a client that
 * sends no `limit` still gets them.
 */
export const RECIPIENT_PAGE_SIZES = { default: 100, max: 100 };

export interface ListRecipientsInput {
  workspaceId: number;
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/**
 * GET /v1/recipients: the distinct accounts this workspace has paid (or is
 * paying), one per (account, bank, currency) with the latest name used,
 * most recent first (ties by the latest payout's id), cursor paginated on
 * that latest payout. Payouts that failed are not recipients. A recipient
 * paid again while a client pages moves to the front, so a walk through the
 * pages may miss it or see it twice.
 */
export async function listRecipients(db: DbOrTx, input: ListRecipientsInput) {
  const limit = pageLimit(input.limit, RECIPIENT_PAGE_SIZES);
  const after = input.cursor ? decodePageCursor(input.cursor) : null;
  // The column is a UTC timestamp without a zone: the cursor's instant is compared in UTC.
  const afterClause = after
    ? Prisma.sql`WHERE (r.last_sent_at, r.last_id) < ((${after.createdAt.toISOString()}::timestamptz AT TIME ZONE 'UTC'), ${after.id})`
    : Prisma.empty;
  const rows = await db.$queryRaw<RecipientRow[]>`
    SELECT * FROM (
      SELECT DISTINCT ON ("counterpartyAccount", COALESCE("bankCode", ''), "currency")
        "counterpartyName" AS name, "counterpartyAccount" AS account_number, "bankCode" AS bank_code,
        "counterpartyBank" AS bank_name, "currency", "createdAt" AS last_sent_at, "id" AS last_id,
        COUNT(*) OVER (PARTITION BY "counterpartyAccount", COALESCE("bankCode", ''), "currency") AS payouts
      FROM "LedgerTransaction"
      WHERE "workspaceId" = ${input.workspaceId} AND "type" = 'debit' AND "status" <> 'failed' AND "counterpartyAccount" IS NOT NULL
      ORDER BY "counterpartyAccount", COALESCE("bankCode", ''), "currency", "createdAt" DESC, "id" DESC
    ) r
    ${afterClause}
    ORDER BY r.last_sent_at DESC, r.last_id DESC
    LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      name: r.name,
      account_number: r.account_number,
      bank_code: r.bank_code,
      bank_name: r.bank_name,
      currency: r.currency,
      payouts: Number(r.payouts),
      last_sent_at: r.last_sent_at.toISOString(),
    })),
    nextCursor: rows.length > limit && last ? encodePageCursor({ createdAt: last.last_sent_at, id: last.last_id }) : null,
  };
}

/** How far from a transaction's own times its events are looked for. */
const EVENT_WINDOW_MS = 60_000;

/** An event a transaction produced, with what became of each delivery of it. */
export interface TransactionEvent {
  id: number;
  event: string;
  created_at: string;
  deliveries: Array<{ id: number; endpoint_id: number; dispatch: number; ok: boolean | null; status_code: number | null; created_at: string }>;
}

/** The events a transaction produces (names of the webhook events' catalog). */
const TRANSACTION_EVENTS: WebhookEventName[] = ['transfer.completed', 'transfer.failed', 'transfer.reversed', 'collection.successful'];

/**
 * One transaction of the workspace (404 for anyone else's) and the webhook
 * events it produced: a payout's transfer.completed, transfer.failed or transfer.reversed (its
 * data is the transaction), a collection credit's collection.successful (its
 * provider_reference is the credit's). Events are looked for near the
 * transaction's own times, on the outbox's (workspace, time) index.
 */
export async function transactionWithEvents(db: DbOrTx, workspaceId: number, reference: string) {
  const row = await db.ledgerTransaction.findFirst({ where: { workspaceId, reference } });
  if (!row) throw new AppError('not_found', 'Transaction not found');
  const candidates = await db.outboxEvent.findMany({
    where: {
      workspaceId,
      createdAt: { gte: new Date(row.createdAt.getTime() - EVENT_WINDOW_MS), lte: new Date(row.updatedAt.getTime() + EVENT_WINDOW_MS) },
      event: { in: TRANSACTION_EVENTS },
    },
    orderBy: { id: 'asc' },
  });
  const produced = candidates.filter((e) => {
    const data = asObject(e.payload);
    return e.event === ('collection.successful' satisfies WebhookEventName)
      ? row.type === 'credit' && row.providerReference !== null && data.provider_reference === row.providerReference
      : row.type === 'debit' && data.reference === row.reference;
  });
  const deliveries = await db.webhookDelivery.findMany({
    where: { outboxEventId: { in: produced.map((e) => e.id) } },
    orderBy: { id: 'asc' },
  });
  const events: TransactionEvent[] = produced.map((e) => ({
    id: Number(e.id),
    event: e.event,
    created_at: e.createdAt.toISOString(),
    deliveries: deliveries
      .filter((d) => d.outboxEventId === e.id)
      .map((d) => ({
        id: Number(d.id),
        endpoint_id: d.endpointId,
        dispatch: d.dispatch,
        ok: d.completedAt ? d.ok === 1 : null,
        status_code: d.statusCode,
        created_at: d.createdAt.toISOString(),
      })),
  }));
  const attempts = row.type === 'debit' ? await payoutAttempts(db, row) : [];
  return { transaction: renderTransaction(row), events, attempts };
}

/** One rail's attempt at a payout as the dashboard shows it. */
export interface PayoutAttemptView {
  rail: string;
  /** The reference it was sent with at that rail. */
  reference: string;
  /** refused, failed or skipped (it moved on), or, for the rail it stayed on, the payout's own status (processing while it is); found_after_move / found_after_fail. */
  outcome: string;
  reason: string | null;
  created_at: string;
}

/** The rails a payout was sent to, in order: each one's reference and what came of it. */
async function payoutAttempts(db: DbOrTx, row: LedgerTransaction): Promise<PayoutAttemptView[]> {
  const attempts = await db.payoutAttempt.findMany({ where: { transactionId: row.id }, orderBy: { createdAt: 'asc' } });
  return attempts.map((a) => ({
    rail: a.rail,
    reference: a.reference,
    // The attempt that stayed is the payout's own: its status says how it ended (no write on the hot path to say it twice).
    outcome: (a.outcome === 'sending' || a.outcome === UNCONFIRMED) && a.rail === row.provider ? row.status : a.outcome,
    reason: a.reason,
    created_at: a.createdAt.toISOString(),
  }));
}

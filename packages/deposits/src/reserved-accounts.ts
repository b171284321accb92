import { AppError, decodePageCursor, idsAfter, pageLimit, pageOf } from '@cowrie/core';
import { recordEvent, type Prisma, type ReservedAccount } from '@cowrie/db';
import { newReference } from '@cowrie/ledger';
import { openedAccountColumns } from './rail-call';
import type { DepositsContext } from './context';
import { openAccountOnce } from './account-opening';

/** `data` of reserved_account.created. */
export function reservedAccountCreatedPayload(
  row: Pick<ReservedAccount, 'id' | 'reference' | 'accountNumber' | 'bankName' | 'customerName' | 'customerEmail' | 'currency' | 'holder'>,
) {
  return {
    id: row.id,
    reference: row.reference,
    account_number: row.accountNumber,
    bank: row.bankName,
    customer: { name: row.customerName, email: row.customerEmail },
    currency: row.currency,
    holder: row.holder,
  };
}

interface OpenReservedInput {
  workspaceId: number;
  holder: 'business' | 'customer';
  reference: string;
  currency: string;
  customer: { name: string; email: string | null };
  accountName: string;
  /** What is being opened, unique per workspace (the opening claim's scope). */
  scope: string;
  find: (db: Prisma.TransactionClient) => Promise<ReservedAccount | null>;
}

/**
 * The opening path shared by both kinds: find, or open on the rail once
 * (openAccountOnce: no transaction is held while the rail answers) and record
 * it with its reserved_account.created event in one short transaction.
 */
async function openReserved(ctx: DepositsContext, input: OpenReservedInput): Promise<{ account: ReservedAccount; created: boolean }> {
  const { db, rail } = ctx;
  const { value, created } = await openAccountOnce(ctx, {
    workspaceId: input.workspaceId,
    scope: input.scope,
    railReferencePrefix: 'rsv',
    find: () => input.find(db as unknown as Prisma.TransactionClient),
    open: (railReference) =>
      rail.openReservedAccount({
        reference: railReference,
        merchantReference: input.reference,
        currency: input.currency,
        accountName: input.accountName,
        customer: input.customer,
      }),
    record: async (tx, opened, railReference) => {
      const account = await tx.reservedAccount.create({
        data: {
          workspaceId: input.workspaceId,
          holder: input.holder,
          reference: input.reference,
          railReference,
          currency: input.currency,
          depositCurrency: input.holder === 'business' ? input.currency : null,
          customerName: input.customer.name,
          customerEmail: input.customer.email,
          provider: rail.name,
          ...openedAccountColumns(opened),
        },
      });
      await recordEvent(tx, input.workspaceId, { name: 'reserved_account.created', payload: reservedAccountCreatedPayload(account) });
      return account;
    },
  });
  return { account: value, created };
}

/**
 * The business's own reserved account for a currency (deposits, channel
 * reserved_va): the existing one, or opened on first use. Concurrent first use
 * opens one (the opening claim, then the (workspace, depositCurrency) unique index).
 */
export async function ensureBusinessReservedAccount(ctx: DepositsContext, { workspaceId, currency }: { workspaceId: number; currency: string }) {
  const find = (tx: Prisma.TransactionClient) =>
    tx.reservedAccount.findUnique({ where: { workspaceId_depositCurrency: { workspaceId, depositCurrency: currency } } });
  const existing = await find(ctx.db);
  if (existing) return { account: existing, created: false };
  const workspace = await ctx.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { name: true } });
  return openReserved(ctx, {
    workspaceId,
    holder: 'business',
    // Fixed per currency: the business has one deposit account in each.
    reference: `business_${currency.toLowerCase()}`,
    currency,
    customer: { name: workspace.name, email: null },
    accountName: workspace.name,
    scope: `reserved:business:${currency}`,
    find,
  });
}

export interface CustomerReservedAccountInput {
  workspaceId: number;
  currency: string;
  customer: { name: string; email: string };
  reference?: string;
}

/**
 * A customer's reserved account (one per customer email and currency): the
 * existing one is returned (created false), else one is opened. A reference
 * already used for a different customer or currency is a 400.
 */
export async function createCustomerReservedAccount(ctx: DepositsContext, input: CustomerReservedAccountInput) {
  const email = input.customer.email.toLowerCase();
  const { workspaceId, currency } = input;
  const byCustomer = (tx: Prisma.TransactionClient) =>
    tx.reservedAccount.findUnique({ where: { workspaceId_customerEmail_currency: { workspaceId, customerEmail: email, currency } } });
  const byReference = (tx: Prisma.TransactionClient, reference: string) =>
    tx.reservedAccount.findUnique({ where: { workspaceId_reference: { workspaceId, reference } } });
  const conflict = (row: ReservedAccount | null) => {
    if (row && (row.customerEmail !== email || row.currency !== currency)) {
      throw new AppError('invalid_request', 'reference is already used by another reserved account', { details: { field: 'reference' } });
    }
  };
  if (input.reference) conflict(await byReference(ctx.db, input.reference));
  const find = async (tx: Prisma.TransactionClient) => {
    if (input.reference) conflict(await byReference(tx, input.reference));
    return byCustomer(tx);
  };
  const existing = await find(ctx.db);
  if (existing) return { account: existing, created: false };
  const workspace = await ctx.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { name: true } });
  return openReserved(ctx, {
    workspaceId,
    holder: 'customer',
    reference: input.reference ?? newReference('rsv'),
    currency,
    customer: { name: input.customer.name, email },
    accountName: `${workspace.name} / ${input.customer.name}`,
    scope: `reserved:customer:${currency}:${email}`,
    find,
  });
}

export async function getReservedAccount(ctx: Pick<DepositsContext, 'db'>, workspaceId: number, id: number) {
  const row = await ctx.db.reservedAccount.findFirst({ where: { id, workspaceId } });
  if (!row) throw new AppError('not_found', 'Reserved account not found');
  return row;
}

/**
 * Rows per page of GET /v1/reserved-accounts: 50 when `limit` is not given, a
 * larger one clamped to 200 (the list answered so before it paged).
 */
export const RESERVED_ACCOUNT_PAGE_SIZES = { default: 50, max: 200 };

export interface ListReservedAccountsQuery {
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  currency?: string;
  customerEmail?: string;
}

/** A workspace's reserved accounts, newest first (by id), cursor paginated; rows as stored (renderReservedAccount renders them). */
export async function listReservedAccounts(ctx: Pick<DepositsContext, 'db'>, workspaceId: number, query: ListReservedAccountsQuery) {
  const limit = pageLimit(query.limit, RESERVED_ACCOUNT_PAGE_SIZES);
  const rows = await ctx.db.reservedAccount.findMany({
    where: {
      workspaceId,
      currency: query.currency,
      customerEmail: query.customerEmail?.toLowerCase(),
      ...(query.cursor ? idsAfter(decodePageCursor(query.cursor)) : {}),
    },
    orderBy: { id: 'desc' },
    take: limit + 1,
  });
  return pageOf(rows, limit, (row) => row);
}

import { AppError, formatAmount } from '@cowrie/core';
import { recordEvent, type Collection } from '@cowrie/db';
import { clockOf, type DepositsContext } from './context';

/** `data` of collection.expired. */
export function collectionExpiredPayload(row: Pick<Collection, 'id' | 'reference' | 'amount' | 'currency' | 'accountNumber' | 'expiresAt'>) {
  return {
    id: row.id,
    reference: row.reference,
    amount: formatAmount(row.amount),
    currency: row.currency,
    account_number: row.accountNumber,
    expires_at: row.expiresAt.toISOString(),
  };
}

/**
 * Reads a collection of the workspace (another workspace's id is not found),
 * as it stands now (expireIfDue).
 */
export async function readCollection(ctx: Pick<DepositsContext, 'db' | 'now'>, workspaceId: number, id: number): Promise<Collection> {
  const row = await ctx.db.collection.findFirst({ where: { id, workspaceId } });
  if (!row) throw new AppError('not_found', 'Collection not found');
  return expireIfDue(ctx, row);
}

/**
 * A collection read from the database, as it stands at the clock's now: a
 * `pending` collection read at or after its `expiresAt` becomes `expired` and
 * emits collection.expired, in one transaction; the conditional update makes
 * concurrent reads emit it exactly once. Every read that answers a client with
 * a collection's state goes through it (GET /v1/collections/:id, a repeated
 * reference in openCollection).
 */
export async function expireIfDue(ctx: Pick<DepositsContext, 'db' | 'now'>, row: Collection): Promise<Collection> {
  const now = clockOf(ctx)();
  if (row.status !== 'pending' || row.expiresAt > now) return row;
  return ctx.db.$transaction(async (tx) => {
    const expired = await tx.collection.updateMany({
      where: { id: row.id, status: 'pending', expiresAt: { lte: now } },
      data: { status: 'expired', expiredAt: now },
    });
    const current = await tx.collection.findUniqueOrThrow({ where: { id: row.id } });
    if (expired.count === 1) {
      await recordEvent(tx, row.workspaceId, { name: 'collection.expired', payload: collectionExpiredPayload(current) });
    }
    return current;
  });
}

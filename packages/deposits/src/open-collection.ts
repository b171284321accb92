import type { Decimal } from '@cowrie/core';
import type { Collection, Prisma } from '@cowrie/db';
import { callRail, newReference, openedAccountColumns } from './rail-call';
import { clockOf, isUniqueViolation, openingTransactionOptions, type DepositsContext } from './context';

export interface OpenCollectionInput {
  workspaceId: number;
  /** `deposit` (the business is the account holder) or `collection` (a customer pays). */
  source: 'deposit' | 'collection';
  /** The client's de-duplication reference; a repeat returns the same collection. Generated when absent. */
  reference?: string;
  amount: Decimal;
  currency: string;
  expiresInSeconds: number;
  customer?: { name: string; email: string };
}

export async function lockKey(tx: Prisma.TransactionClient, key: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
}

/**
 * Opens a one-off account (channel collection_va) on the rail and records it as
 * a `pending` collection. A repeated reference returns the existing collection
 * without calling the rail; concurrent requests with one reference queue on a
 * lock so the rail is called once, and the (workspace, reference) unique index
 * is the last guard. A rail failure writes nothing (503 provider_error).
 */
export async function openCollection(ctx: DepositsContext, input: OpenCollectionInput): Promise<{ collection: Collection; created: boolean }> {
  const { db, rail } = ctx;
  // Emails are kept lowercased, as reserved accounts keep theirs.
  const customer = input.customer && { ...input.customer, email: input.customer.email.toLowerCase() };
  const reference = input.reference ?? newReference('col');
  const where = { workspaceId_reference: { workspaceId: input.workspaceId, reference } };
  const existing = await db.collection.findUnique({ where });
  if (existing) return { collection: existing, created: false };
  try {
    return await db.$transaction(async (tx) => {
      await lockKey(tx, `collection:${input.workspaceId}:${reference}`);
      const again = await tx.collection.findUnique({ where });
      if (again) return { collection: again, created: false };
      const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: input.workspaceId }, select: { name: true } });
      const expiresAt = new Date(clockOf(ctx)().getTime() + input.expiresInSeconds * 1000);
      const accountName = customer ? `${workspace.name} / ${customer.name}` : workspace.name;
      const railReference = newReference('col');
      const opened = await callRail(() =>
        rail.openOneOffAccount({
          reference: railReference,
          merchantReference: reference,
          amount: input.amount,
          currency: input.currency,
          expiresAt,
          accountName,
          customer: customer ?? { name: workspace.name, email: null },
        }),
      );
      const collection = await tx.collection.create({
        data: {
          workspaceId: input.workspaceId,
          source: input.source,
          reference,
          railReference,
          status: 'pending',
          currency: input.currency,
          amount: input.amount.toFixed(6),
          customerName: customer?.name ?? null,
          customerEmail: customer?.email ?? null,
          provider: rail.name,
          ...openedAccountColumns(opened),
          expiresAt: opened.expiresAt ?? expiresAt,
        },
      });
      return { collection, created: true };
    }, openingTransactionOptions(ctx));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await db.collection.findUnique({ where });
    if (!winner) throw err;
    return { collection: winner, created: false };
  }
}

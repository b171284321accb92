import type { Decimal } from '@cowrie/core';
import type { Collection } from '@cowrie/db';
import { newReference } from '@cowrie/ledger';
import { openedAccountColumns } from './rail-call';
import { clockOf, type DepositsContext } from './context';
import { openAccountOnce } from './account-opening';
import { expireIfDue } from './collections';

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

/**
 * Opens a one-off account (channel collection_va) on the rail and records it as
 * a `pending` collection. A repeated reference returns the existing collection
 * as it stands now (expireIfDue: read past its expiry, it becomes `expired`)
 * without calling the rail; what a repeat may answer is the caller's rule
 * (createDeposit refuses one that is no longer open or asks for another amount
 * or currency). Concurrent requests with one reference call the
 * rail once (openAccountOnce: no transaction is held while the rail answers),
 * and the (workspace, reference) unique index is the last guard. A rail
 * failure writes nothing (503 provider_error).
 */
export async function openCollection(ctx: DepositsContext, input: OpenCollectionInput): Promise<{ collection: Collection; created: boolean }> {
  const { db, rail } = ctx;
  // Emails are kept lowercased, as reserved accounts keep theirs.
  const customer = input.customer && { ...input.customer, email: input.customer.email.toLowerCase() };
  const reference = input.reference ?? newReference('col');
  const find = () => db.collection.findUnique({ where: { workspaceId_reference: { workspaceId: input.workspaceId, reference } } });
  const existing = await find();
  if (existing) return { collection: await expireIfDue(ctx, existing), created: false };
  const workspace = await db.workspace.findUniqueOrThrow({ where: { id: input.workspaceId }, select: { name: true } });
  const expiresAt = new Date(clockOf(ctx)().getTime() + input.expiresInSeconds * 1000);
  const accountName = customer ? `${workspace.name} / ${customer.name}` : workspace.name;
  const { value, created } = await openAccountOnce(ctx, {
    workspaceId: input.workspaceId,
    scope: `collection:${reference}`,
    railReferencePrefix: 'col',
    find,
    open: (railReference) =>
      rail.openOneOffAccount({
        reference: railReference,
        merchantReference: reference,
        amount: input.amount,
        currency: input.currency,
        expiresAt,
        accountName,
        customer: customer ?? { name: workspace.name, email: null },
      }),
    record: (tx, opened, railReference) =>
      tx.collection.create({
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
      }),
  });
  return { collection: created ? value : await expireIfDue(ctx, value), created };
}

import { Decimal } from '@cowrie/core';
import type { Prisma } from '@cowrie/db';
import { newReference } from './references';

export interface CreditWalletInput {
  workspaceId: number;
  currency: string;
  amount: Decimal;
  /** e.g. `adjustment` (sandbox funding), `collection` */
  category: string;
  /** e.g. `adjustment`, `collection_va`, `reserved_va` */
  channel: string;
  title: string;
  description: string;
  provider: string;
  providerReference?: string | null;
  counterpartyName?: string | null;
  counterpartyAccount?: string | null;
  counterpartyBank?: string | null;
  counterpartyEmail?: string | null;
  /** De-duplicates credits per workspace (e.g. the rail's payment reference); defaults to the reference. */
  idempotencyKey?: string;
  metadata?: Prisma.InputJsonValue;
}

export class WalletNotFoundError extends Error {
  override name = 'WalletNotFoundError';
}

/**
 * Credits a wallet: one `completed` credit transaction, one ledger entry and
 * the balance increase, all inside the caller's transaction. Returns the
 * existing transaction when `idempotencyKey` was already used (credited once).
 */
export async function creditWallet(tx: Prisma.TransactionClient, input: CreditWalletInput) {
  if (!input.amount.greaterThan(0)) throw new Error('a credit must be positive');
  const currency = input.currency.toUpperCase();
  const reference = newReference('crd');
  const idempotencyKey = input.idempotencyKey ?? reference;
  // Concurrent credits with one key queue here, so the second finds the first.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`credit:${input.workspaceId}:${idempotencyKey}`}))`;
  const existing = await tx.ledgerTransaction.findUnique({
    where: { workspaceId_type_idempotencyKey: { workspaceId: input.workspaceId, type: 'credit', idempotencyKey } },
  });
  if (existing) return { transaction: existing, created: false };
  const wallet = await tx.wallet.findUnique({ where: { workspaceId_currency: { workspaceId: input.workspaceId, currency } } });
  if (!wallet) throw new WalletNotFoundError(`no ${currency} wallet`);
  const amount = input.amount.toFixed(6);
  const transaction = await tx.ledgerTransaction.create({
    data: {
      workspaceId: input.workspaceId,
      walletId: wallet.id,
      type: 'credit',
      direction: 'in',
      category: input.category,
      channel: input.channel,
      status: 'completed',
      reference,
      idempotencyKey,
      currency,
      amount,
      fees: '0',
      title: input.title,
      description: input.description,
      provider: input.provider,
      providerReference: input.providerReference ?? null,
      counterpartyName: input.counterpartyName ?? null,
      counterpartyAccount: input.counterpartyAccount ?? null,
      counterpartyBank: input.counterpartyBank ?? null,
      counterpartyEmail: input.counterpartyEmail ?? null,
      metadata: input.metadata ?? {},
    },
  });
  await tx.ledgerEntry.create({
    data: { walletId: wallet.id, transactionId: transaction.id, kind: 'credit', balanceDelta: amount, heldDelta: '0' },
  });
  await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + ${amount}::numeric, "updatedAt" = now() WHERE "id" = ${wallet.id}`;
  return { transaction, created: true };
}

import type { Decimal } from '@cowrie/core';
import type { Prisma } from '@cowrie/db';

/**
 * Places a hold of `amount` on a wallet for a debit transaction: pending rises,
 * available drops. The conditional UPDATE is the overdraft guard: it succeeds
 * only while available (balance - held) covers the amount, whatever the
 * concurrency. Returns false when it does not, having written nothing.
 *
 * The UPDATE and the hold's ledger entry are one statement: the wallet's row
 * lock is taken by the caller's last round trip before its commit, so a hot
 * wallet is locked as briefly as possible (every payout of a workspace queues
 * on that row).
 */
export async function placeHold(
  tx: Prisma.TransactionClient,
  { walletId, transactionId, amount }: { walletId: number; transactionId: number; amount: Decimal },
): Promise<boolean> {
  const value = amount.toFixed(6);
  const inserted = await tx.$executeRaw`
    WITH held AS (
      UPDATE "Wallet" SET "held" = "held" + ${value}::numeric, "updatedAt" = now()
      WHERE "id" = ${walletId} AND "balance" - "held" >= ${value}::numeric
      RETURNING "id"
    )
    INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta")
    SELECT "id", ${transactionId}, 'hold', 0, ${value}::numeric FROM held`;
  return inserted === 1;
}

async function openHold(tx: Prisma.TransactionClient, transactionId: number) {
  // Serialises settle and release of one transaction: exactly one of them wins.
  await tx.$queryRaw`SELECT "id" FROM "LedgerTransaction" WHERE "id" = ${transactionId} FOR UPDATE`;
  const entries = await tx.ledgerEntry.findMany({ where: { transactionId }, select: { kind: true, walletId: true, heldDelta: true } });
  const hold = entries.find((e) => e.kind === 'hold');
  if (!hold || entries.some((e) => e.kind === 'settle' || e.kind === 'release')) return null;
  return { walletId: hold.walletId, amount: hold.heldDelta.toString() };
}

/**
 * Settles a transaction's hold: the money leaves (balance and pending both
 * drop). Does nothing and returns false when there is no open hold, so a
 * replayed settlement changes nothing.
 */
export async function settleHold(tx: Prisma.TransactionClient, transactionId: number): Promise<boolean> {
  const hold = await openHold(tx, transactionId);
  if (!hold) return false;
  await tx.ledgerEntry.create({
    data: { walletId: hold.walletId, transactionId, kind: 'settle', balanceDelta: `-${hold.amount}`, heldDelta: `-${hold.amount}` },
  });
  await tx.$executeRaw`
    UPDATE "Wallet" SET "balance" = "balance" - ${hold.amount}::numeric, "held" = "held" - ${hold.amount}::numeric, "updatedAt" = now()
    WHERE "id" = ${hold.walletId}`;
  return true;
}

/** Releases a transaction's hold: available rises again. Idempotent like settleHold. */
export async function releaseHold(tx: Prisma.TransactionClient, transactionId: number): Promise<boolean> {
  const hold = await openHold(tx, transactionId);
  if (!hold) return false;
  await tx.ledgerEntry.create({
    data: { walletId: hold.walletId, transactionId, kind: 'release', balanceDelta: '0', heldDelta: `-${hold.amount}` },
  });
  await tx.$executeRaw`
    UPDATE "Wallet" SET "held" = "held" - ${hold.amount}::numeric, "updatedAt" = now() WHERE "id" = ${hold.walletId}`;
  return true;
}

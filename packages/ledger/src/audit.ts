import { Decimal } from '@cowrie/core';
import type { DbOrTx } from '@cowrie/db';

/**
 * Checks the ledger invariant for one wallet: its balance equals the sum of its
 * entries' balance deltas and its held amount the sum of their held deltas.
 */
export async function auditWallet(db: DbOrTx, walletId: number) {
  const wallet = await db.wallet.findUniqueOrThrow({ where: { id: walletId } });
  const sums = await db.ledgerEntry.aggregate({ where: { walletId }, _sum: { balanceDelta: true, heldDelta: true } });
  const entriesBalance = new Decimal(sums._sum.balanceDelta?.toString() ?? '0');
  const entriesHeld = new Decimal(sums._sum.heldDelta?.toString() ?? '0');
  const balance = new Decimal(wallet.balance.toString());
  const held = new Decimal(wallet.held.toString());
  return {
    balance,
    held,
    entriesBalance,
    entriesHeld,
    consistent: balance.equals(entriesBalance) && held.equals(entriesHeld) && balance.minus(held).greaterThanOrEqualTo(0),
  };
}

import { Prisma, type LedgerTransaction } from '@cowrie/db';

/** A `LedgerTransaction` row read with plain pg, in the shape Prisma gives it (NUMERIC as Decimal). */
export function ledgerTransactionFromSql(row: Record<string, unknown>): LedgerTransaction {
  const r = row as unknown as LedgerTransaction;
  return { ...r, amount: new Prisma.Decimal(String(row.amount)), fees: new Prisma.Decimal(String(row.fees)) };
}

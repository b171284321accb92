import { insertColumns, modelColumns, sqlColumn, type LedgerEntry, type LedgerTransaction } from '@cowrie/db';

/**
 * Every column of `LedgerTransaction`, for plain-pg statements that read whole
 * rows (`columnList(ledgerTransactionColumns)` in their select list or
 * RETURNING): read in the shape Prisma gives them (NUMERIC as Decimal). A row
 * read with them is a `LedgerTransaction` only while this lists every field:
 * a new column of the model fails to compile until it is read here too.
 */
export const ledgerTransactionColumns = modelColumns<LedgerTransaction>()('LedgerTransaction', {
  id: sqlColumn.int,
  workspaceId: sqlColumn.int,
  walletId: sqlColumn.int,
  type: sqlColumn.text,
  direction: sqlColumn.text,
  category: sqlColumn.text,
  channel: sqlColumn.text,
  status: sqlColumn.text,
  reference: sqlColumn.text,
  idempotencyKey: sqlColumn.text,
  currency: sqlColumn.text,
  amount: sqlColumn.decimal,
  fees: sqlColumn.decimal,
  title: sqlColumn.text,
  description: sqlColumn.text,
  provider: sqlColumn.text,
  providerReference: sqlColumn.text.orNull,
  counterpartyName: sqlColumn.text.orNull,
  counterpartyAccount: sqlColumn.text.orNull,
  counterpartyBank: sqlColumn.text.orNull,
  counterpartyEmail: sqlColumn.text.orNull,
  bankCode: sqlColumn.text.orNull,
  beneficiaryId: sqlColumn.int.orNull,
  metadata: sqlColumn.json,
  requestKey: sqlColumn.text.orNull,
  requestHash: sqlColumn.text.orNull,
  createdAt: sqlColumn.timestamp,
  updatedAt: sqlColumn.timestamp,
});

/** The columns a plain-pg statement writes a ledger entry with, in this order. */
export const LEDGER_ENTRY_COLUMNS = insertColumns<LedgerEntry>()('walletId', 'transactionId', 'kind', 'balanceDelta', 'heldDelta', 'createdAt');

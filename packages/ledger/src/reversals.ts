import {
  columnList,
  defineStatement,
  insertColumns,
  isUniqueViolation,
  OUTBOX_EVENT_COLUMNS,
  sqlParam,
  type LedgerTransaction,
  type SqlQueryable,
} from '@cowrie/db';
import type { EmittedEvent } from '@cowrie/events';
import { newReference } from './references';
import { LEDGER_ENTRY_COLUMNS, ledgerTransactionColumns } from './transaction-rows';

/** The category and channel of a reversal's compensating credit (its ledger key: `reversal:<debit reference>`). */
const REVERSAL_CREDIT = { category: 'reversal', channel: 'payout' } as const;

/** A settled debit the rail reports reversed (the bank returned the money). */
export interface DebitReversal {
  transactionId: number;
  /** The rail that reports it reversed: a debit another rail paid is not its to reverse. */
  provider: string;
  /** The reference of the compensating credit (newReversalReference). */
  creditReference: string;
  /** The debit's new metadata (the rail's answer under `raw`, and `reversed_by`, the credit's reference). */
  metadata: Record<string, unknown>;
  /** The outbox event committed with the reversal (`transfer.reversed`, the debit as it now is). */
  event: EmittedEvent<'transfer.reversed'>;
  /** The debit's `updatedAt`, as the caller rendered it into the event's payload. */
  at: Date;
}

/** A reversal credit's reference (`crd_`), chosen before the statement so the debit's metadata can name it. */
export const newReversalReference = () => newReference('crd');

/**
 * A completed debit becomes `reversed`, and the wallet gets its amount and
 * fees back, in one statement committed on its own: the debit leaves
 * `completed` (the gate: a racing reversal waits for the row's lock, then
 * finds it reversed and changes nothing), a `completed` credit of category
 * `reversal`, channel `payout` (metadata.reversal_of: the debit's reference;
 * its ledger key `reversal:<reference>`, unique per workspace, a second
 * guard), its `credit` entry, the balance's rise, and the outbox event. The
 * debit's row is locked before the wallet's, as every close does.
 */
/** The columns REVERSE_SETTLED_DEBIT writes its credit with, in the order its SELECT gives them. */
const REVERSAL_CREDIT_COLUMNS = insertColumns<LedgerTransaction>()(
  'workspaceId',
  'walletId',
  'type',
  'direction',
  'category',
  'channel',
  'status',
  'reference',
  'idempotencyKey',
  'currency',
  'amount',
  'fees',
  'title',
  'description',
  'provider',
  'providerReference',
  'counterpartyName',
  'counterpartyAccount',
  'counterpartyBank',
  'metadata',
  'createdAt',
  'updatedAt',
);

const REVERSE_SETTLED_DEBIT = defineStatement({
  name: 'cowrie-reverse-settled-debit',
  params: {
    id: sqlParam.int,
    provider: sqlParam.text,
    creditReference: sqlParam.text,
    metadata: sqlParam.json,
    event: sqlParam.text,
    payload: sqlParam.json,
    at: sqlParam.timestamp,
  },
  text: (p) => `
  WITH reversed AS (
    UPDATE "LedgerTransaction" t SET "status" = 'reversed', "metadata" = ${p.metadata}, "updatedAt" = ${p.at}
    WHERE t."id" = ${p.id} AND t."type" = 'debit' AND t."status" = 'completed' AND t."provider" = ${p.provider}
    RETURNING t.*
  ), credit AS (
    INSERT INTO "LedgerTransaction" (${REVERSAL_CREDIT_COLUMNS})
    SELECT r."workspaceId", r."walletId", 'credit', 'in', '${REVERSAL_CREDIT.category}', '${REVERSAL_CREDIT.channel}', 'completed', ${p.creditReference},
      'reversal:' || r."reference", r."currency", r."amount" + r."fees", 0, 'Reversal of ' || r."reference",
      'The bank returned ' || r."reference" || ': its amount and fees are back in the wallet', r."provider", r."providerReference",
      r."counterpartyName", r."counterpartyAccount", r."counterpartyBank",
      jsonb_build_object('reversal_of', r."reference", 'provider', r."provider"), ${p.at}, ${p.at}
    FROM reversed r
    RETURNING "id", "walletId", "amount"
  ), entry AS (
    INSERT INTO "LedgerEntry" (${LEDGER_ENTRY_COLUMNS})
    SELECT "walletId", "id", 'credit', "amount", 0, ${p.at} FROM credit
  ), wallet AS (
    UPDATE "Wallet" w SET "balance" = w."balance" + c."amount", "updatedAt" = ${p.at} FROM credit c WHERE w."id" = c."walletId"
  ), event AS (
    INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
    SELECT r."workspaceId", ${p.event}, ${p.payload}, ${p.at} FROM reversed r
  )
  SELECT ${columnList(ledgerTransactionColumns, 'reversed')} FROM reversed`,
  result: ledgerTransactionColumns,
});

/**
 * Reverses a completed debit (REVERSE_SETTLED_DEBIT): its row as reversed,
 * or null when it was not `completed` (reversed already, or never settled)
 * or was paid by another rail than the one reporting the reversal.
 */
export async function reverseSettledDebit(sql: SqlQueryable, reversal: DebitReversal): Promise<LedgerTransaction | null> {
  try {
    const { rows } = await REVERSE_SETTLED_DEBIT.run(sql, {
      id: reversal.transactionId,
      provider: reversal.provider,
      creditReference: reversal.creditReference,
      metadata: reversal.metadata,
      event: reversal.event.name,
      payload: reversal.event.payload,
      at: reversal.at,
    });
    return rows[0] ?? null;
  } catch (err) {
    // The credit's key is taken: this debit was reversed by another path already.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

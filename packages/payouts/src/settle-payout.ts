import { inSqlTransaction, utcTimestamp, type LedgerTransaction, type Prisma, type SqlPool } from '@cowrie/db';
import type { TTransferResult } from '@cowrie/rails';
import { asObject, renderTransaction, type TRenderedTransaction } from './render';

/**
 * What the worker made of a payout; `skipped` when the row was not
 * `processing` any more. A final outcome carries the row as the API renders
 * it, committed: the gateway answers with it (the payouts job's result).
 */
export type TPayoutOutcome =
  | { kind: 'completed'; transaction: TRenderedTransaction }
  | { kind: 'failed'; reason: string; transaction: TRenderedTransaction }
  | { kind: 'provider_error'; status: number; message: string; transaction: TRenderedTransaction }
  | { kind: 'pending' }
  | { kind: 'skipped'; status: string | null };

interface Finish {
  status: 'completed' | 'failed';
  raw: Record<string, unknown>;
  providerReference?: string | null;
  accountName?: string | null;
  dispatch: { outcome: 'completed' | 'failed' | 'provider_error'; errorStatus?: number; errorMessage?: string };
}

/**
 * A payout's end as one statement, committed on its own: the row leaves
 * `processing` (the gate: a racing finish waits for this row's lock, then
 * finds it final and changes nothing), the dispatch record, the
 * `transfer.*` outbox event, and the hold's close, a `settle` entry (balance
 * and pending drop) or a `release` entry (available rises again), applied to
 * the wallet. The wallet's row lock is taken last and released by the commit
 * that ends the statement, never held across a round trip.
 */
const FINISH_PAYOUT = `
  WITH finished AS (
    UPDATE "LedgerTransaction" SET "status" = $2, "metadata" = $3, "providerReference" = COALESCE($4, "providerReference"),
      "counterpartyName" = COALESCE("counterpartyName", $5), "updatedAt" = $6
    WHERE "id" = $1 AND "status" = 'processing'
    RETURNING "id", "workspaceId"
  ), dispatch AS (
    INSERT INTO "PayoutDispatch" ("transactionId", "outcome", "errorStatus", "errorMessage", "createdAt", "updatedAt")
    SELECT "id", $7, $8, $9, $6, $6 FROM finished
    ON CONFLICT ("transactionId") DO UPDATE SET "outcome" = $7, "errorStatus" = $8, "errorMessage" = $9, "updatedAt" = $6
  ), event AS (
    INSERT INTO "OutboxEvent" ("workspaceId", "event", "payload", "createdAt")
    SELECT "workspaceId", $10, $11, $6 FROM finished
  ), closing AS (
    INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta", "createdAt")
    SELECT h."walletId", h."transactionId", $12, CASE WHEN $12 = 'settle' THEN -h."heldDelta" ELSE 0 END, -h."heldDelta", $6
    FROM "LedgerEntry" h JOIN finished f ON h."transactionId" = f."id" AND h."kind" = 'hold'
    RETURNING "walletId", "balanceDelta", "heldDelta"
  ), wallet AS (
    UPDATE "Wallet" w SET "balance" = w."balance" + closing."balanceDelta", "held" = w."held" + closing."heldDelta", "updatedAt" = $6
    FROM closing WHERE w."id" = closing."walletId"
  )
  SELECT count(*) AS "finished" FROM finished`;

/**
 * Moves a `processing` payout to its final state (FINISH_PAYOUT). Only the
 * first caller wins; a replay finds the row final and changes nothing.
 */
async function finish(sql: SqlPool, row: LedgerTransaction, f: Finish): Promise<TRenderedTransaction | null> {
  const now = new Date();
  const metadata = { ...asObject(row.metadata), provider: row.provider, raw: f.raw };
  // The row as the statement leaves it, for the event's payload.
  const updated: LedgerTransaction = {
    ...row,
    status: f.status,
    metadata: metadata as Prisma.JsonObject,
    providerReference: f.providerReference || row.providerReference,
    counterpartyName: row.counterpartyName ?? (f.accountName || null),
    updatedAt: now,
  };
  const rendered = renderTransaction(updated);
  const { rows } = await sql.query<{ finished: bigint }>({
    name: 'cowrie-finish-payout',
    text: FINISH_PAYOUT,
    values: [
      row.id, f.status, JSON.stringify(metadata), f.providerReference || null, f.accountName || null, utcTimestamp(now),
      f.dispatch.outcome, f.dispatch.errorStatus ?? null, f.dispatch.errorMessage ?? null,
      `transfer.${f.status}`, JSON.stringify(rendered), f.status === 'completed' ? 'settle' : 'release',
    ],
  });
  return Number(rows[0]!.finished) === 1 ? rendered : null;
}

/** Applies what the rail said: completed → settle; failed → release; pending → wait for a later check. */
export async function applyRailResult(sql: SqlPool, row: LedgerTransaction, result: TTransferResult): Promise<TPayoutOutcome> {
  if (result.status === 'pending') {
    await inSqlTransaction(sql, async (client) => {
      const metadata = { ...asObject(row.metadata), provider: row.provider, raw: result.raw };
      const now = utcTimestamp(new Date());
      await client.query({
        text: `UPDATE "LedgerTransaction" SET "metadata" = $2, "providerReference" = COALESCE($3, "providerReference"), "updatedAt" = $4
               WHERE "id" = $1 AND "status" = 'processing'`,
        values: [row.id, JSON.stringify(metadata), result.providerReference || null, now],
      });
      await client.query({ text: `UPDATE "PayoutDispatch" SET "outcome" = 'pending', "updatedAt" = $2 WHERE "transactionId" = $1`, values: [row.id, now] });
    });
    return { kind: 'pending' };
  }
  const reason = result.reason ?? 'The payout rail reported a failure';
  const won = await finish(sql, row, {
    status: result.status,
    raw: result.raw,
    providerReference: result.providerReference,
    accountName: result.accountName,
    dispatch: result.status === 'completed' ? { outcome: 'completed' } : { outcome: 'failed', errorMessage: reason },
  });
  if (!won) return { kind: 'skipped', status: null };
  return result.status === 'completed' ? { kind: 'completed', transaction: won } : { kind: 'failed', reason, transaction: won };
}

/** The rail threw and certainly sent nothing: the row fails, the hold is released, the error is kept for the API. */
export async function failWithProviderError(sql: SqlPool, row: LedgerTransaction, error: { status: number; message: string; raw?: Record<string, unknown> }): Promise<TPayoutOutcome> {
  const won = await finish(sql, row, {
    status: 'failed',
    raw: error.raw ?? { error: error.message },
    dispatch: { outcome: 'provider_error', errorStatus: error.status, errorMessage: error.message },
  });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'provider_error', status: error.status, message: error.message, transaction: won };
}

import { Decimal, type Logger } from '@cowrie/core';
import { utcTimestamp, type SqlPool } from '@cowrie/db';
import { ledgerTransactionFromSql } from '@cowrie/ledger';
import { RailError, type Rails, type TTransferResult } from '@cowrie/rails';
import { applyRailResult, failWithProviderError, type TPayoutOutcome } from './settle-payout';

export interface ExecutePayoutOptions {
  /** Plain pg (see @cowrie/db `sql.ts`): the settle locks the wallet row, as briefly as possible. */
  sql: SqlPool;
  rails: Rails;
  transactionId: number;
  log: Logger;
  /** Aborted when the worker shuts down: the rail call is abandoned and nothing more is written. */
  signal?: AbortSignal;
}

/** The rail's outcome is unknown (it may have moved money and cannot say yet): retry later, never resend blindly. */
export class PayoutOutcomeUnknownError extends Error {
  override name = 'PayoutOutcomeUnknownError';
}

/**
 * Sends one `processing` payout to its rail and settles it (the payout
 * worker's `payout.execute`). It acts only on a `processing` row. When an
 * earlier attempt may have reached the rail it asks the rail by reference
 * first; each attempt is committed to the dispatch record before anything is
 * sent, so a worker killed at any instant leaves enough behind for the next
 * one to ask instead of paying twice.
 */
export async function executePayout({ sql, rails, transactionId, log, signal }: ExecutePayoutOptions): Promise<TPayoutOutcome> {
  // One statement reads the row and, when it is a `processing` payout, commits
  // this attempt before anything is sent: a worker killed during the rail call
  // leaves it on record, and the next attempt asks the rail first.
  const { rows } = await sql.query<Record<string, unknown> & { dispatchAttempts: number | null }>({
    name: 'cowrie-payout-take-up',
    text: `
      WITH attempt AS (
        INSERT INTO "PayoutDispatch" ("transactionId", "attempts", "lastSentAt", "createdAt", "updatedAt")
        SELECT "id", 1, $2, $2, $2 FROM "LedgerTransaction" WHERE "id" = $1 AND "type" = 'debit' AND "status" = 'processing'
        ON CONFLICT ("transactionId") DO UPDATE SET "attempts" = "PayoutDispatch"."attempts" + 1, "lastSentAt" = $2, "updatedAt" = $2
        RETURNING "attempts"
      )
      SELECT t.*, (SELECT "attempts" FROM attempt) AS "dispatchAttempts" FROM "LedgerTransaction" t WHERE t."id" = $1`,
    values: [transactionId, utcTimestamp(new Date())],
  });
  const row = rows[0] ? ledgerTransactionFromSql(rows[0]) : null;
  const earlierAttempts = (rows[0]?.dispatchAttempts ?? 1) - 1;
  if (!row || row.type !== 'debit') return { kind: 'skipped', status: null };
  if (row.status !== 'processing') return { kind: 'skipped', status: row.status };
  const rail = rails.byId(row.provider);

  if (earlierAttempts > 0) {
    let known: TTransferResult | null;
    try {
      known = await rail.verifyTransfer(row.reference, { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new PayoutOutcomeUnknownError(`payout ${row.reference} may have reached ${rail.id}, which cannot say yet: ${(err as Error).message}`);
    }
    if (known) {
      log.info({ reference: row.reference, status: known.status }, 'payout found at the rail; not sending again');
      return applyRailResult(sql, row, known);
    }
  }

  let result: TTransferResult;
  try {
    result = await rail.transfer({
      reference: row.reference,
      amount: new Decimal(row.amount.toString()),
      currency: row.currency,
      accountNumber: row.counterpartyAccount ?? '',
      bankCode: row.bankCode,
      accountName: row.counterpartyName,
      narration: row.description,
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    const railError = err instanceof RailError ? err : new RailError(502, 'The payout rail failed unexpectedly', { maybeSent: true, cause: err });
    if (railError.maybeSent) {
      // Ambiguous: money may have moved. Ask before deciding anything.
      let known: TTransferResult | null;
      try {
        known = await rail.verifyTransfer(row.reference, { signal });
      } catch (verifyErr) {
        if (signal?.aborted) throw verifyErr;
        throw new PayoutOutcomeUnknownError(`payout ${row.reference}: ${railError.message}; the rail could not confirm it either: ${(verifyErr as Error).message}`);
      }
      if (known) return applyRailResult(sql, row, known);
    }
    log.warn({ reference: row.reference, status: railError.status, error: railError.message }, 'payout rail failed; nothing was sent');
    return failWithProviderError(sql, row, { status: railError.status, message: railError.message, raw: railError.raw });
  }
  return applyRailResult(sql, row, result);
}

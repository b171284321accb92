import { Decimal, type Logger } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { RailError, type Rails, type TTransferResult } from '@cowrie/rails';
import { applyRailResult, failWithProviderError, type TPayoutOutcome } from './settle-payout';

export interface ExecutePayoutOptions {
  db: PrismaClient;
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
 * first; the dispatch record is committed before every send, so a worker
 * killed at any instant leaves enough behind for the next one to ask instead
 * of paying twice.
 */
export async function executePayout({ db, rails, transactionId, log, signal }: ExecutePayoutOptions): Promise<TPayoutOutcome> {
  const [row, dispatched] = await Promise.all([
    db.ledgerTransaction.findUnique({ where: { id: transactionId } }),
    db.payoutDispatch.findUnique({ where: { transactionId } }),
  ]);
  if (!row || row.type !== 'debit') return { kind: 'skipped', status: null };
  if (row.status !== 'processing') return { kind: 'skipped', status: row.status };
  const rail = rails.byId(row.provider);

  if (dispatched && dispatched.attempts > 0) {
    let known: TTransferResult | null;
    try {
      known = await rail.verifyTransfer(row.reference, { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new PayoutOutcomeUnknownError(`payout ${row.reference} may have reached ${rail.id}, which cannot say yet: ${(err as Error).message}`);
    }
    if (known) {
      log.info({ reference: row.reference, status: known.status }, 'payout found at the rail; not sending again');
      return applyRailResult(db, row, known);
    }
  }

  await db.payoutDispatch.upsert({
    where: { transactionId },
    create: { transactionId, attempts: 1, lastSentAt: new Date() },
    update: { attempts: { increment: 1 }, lastSentAt: new Date() },
  });
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
      if (known) return applyRailResult(db, row, known);
    }
    log.warn({ reference: row.reference, status: railError.status, error: railError.message }, 'payout rail failed; nothing was sent');
    return failWithProviderError(db, row, { status: railError.status, message: railError.message, raw: railError.raw });
  }
  return applyRailResult(db, row, result);
}

import { Prisma, recordEvent, type LedgerTransaction, type PrismaClient } from '@cowrie/db';
import { releaseHold, settleHold } from '@cowrie/ledger';
import type { TTransferResult } from '@cowrie/rails';
import { asObject, renderTransaction } from './render';

/** What the worker made of a payout; `skipped` when the row was not `processing` any more. */
export type TPayoutOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; reason: string }
  | { kind: 'provider_error'; status: number; message: string }
  | { kind: 'pending' }
  | { kind: 'skipped'; status: string | null };

const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 };

interface Finish {
  status: 'completed' | 'failed';
  raw: Record<string, unknown>;
  providerReference?: string | null;
  accountName?: string | null;
  dispatch: { outcome: 'completed' | 'failed' | 'provider_error'; errorStatus?: number; errorMessage?: string };
}

/**
 * Moves a `processing` payout to its final state in one transaction: the row,
 * the hold (settled on completion, released on failure), the dispatch record
 * and the `transfer.completed` / `transfer.failed` outbox event. Only the first
 * caller wins; a replay finds the row final and changes nothing.
 */
async function finish(db: PrismaClient, row: LedgerTransaction, f: Finish): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const metadata = { ...asObject(row.metadata), provider: row.provider, raw: f.raw } as Prisma.InputJsonObject;
    let updated: LedgerTransaction;
    try {
      updated = await tx.ledgerTransaction.update({
        where: { id: row.id, status: 'processing' },
        data: {
          status: f.status,
          metadata,
          ...(f.providerReference ? { providerReference: f.providerReference } : {}),
          ...(!row.counterpartyName && f.accountName ? { counterpartyName: f.accountName } : {}),
        },
      });
    } catch (err) {
      // P2025: no longer processing; another attempt settled it first.
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2025') return false;
      throw err;
    }
    await tx.payoutDispatch.upsert({
      where: { transactionId: row.id },
      create: { transactionId: row.id, ...f.dispatch },
      update: { errorStatus: null, errorMessage: null, ...f.dispatch },
    });
    await recordEvent(tx, { workspaceId: row.workspaceId, event: `transfer.${f.status}`, payload: renderTransaction(updated) as unknown as Prisma.InputJsonObject });
    // Last, so the wallet's row lock is held only until the commit that follows.
    if (f.status === 'completed') await settleHold(tx, row.id);
    else await releaseHold(tx, row.id);
    return true;
  }, TX_OPTIONS);
}

/** Applies what the rail said: completed → settle; failed → release; pending → wait for a later check. */
export async function applyRailResult(db: PrismaClient, row: LedgerTransaction, result: TTransferResult): Promise<TPayoutOutcome> {
  if (result.status === 'pending') {
    await db.$transaction(async (tx) => {
      await tx.ledgerTransaction.updateMany({
        where: { id: row.id, status: 'processing' },
        data: {
          metadata: { ...asObject(row.metadata), provider: row.provider, raw: result.raw } as Prisma.InputJsonObject,
          ...(result.providerReference ? { providerReference: result.providerReference } : {}),
        },
      });
      await tx.payoutDispatch.updateMany({ where: { transactionId: row.id }, data: { outcome: 'pending' } });
    });
    return { kind: 'pending' };
  }
  const reason = result.reason ?? 'The payout rail reported a failure';
  const won = await finish(db, row, {
    status: result.status,
    raw: result.raw,
    providerReference: result.providerReference,
    accountName: result.accountName,
    dispatch: result.status === 'completed' ? { outcome: 'completed' } : { outcome: 'failed', errorMessage: reason },
  });
  if (!won) return { kind: 'skipped', status: null };
  return result.status === 'completed' ? { kind: 'completed' } : { kind: 'failed', reason };
}

/** The rail threw and certainly sent nothing: the row fails, the hold is released, the error is kept for the API. */
export async function failWithProviderError(db: PrismaClient, row: LedgerTransaction, error: { status: number; message: string; raw?: Record<string, unknown> }): Promise<TPayoutOutcome> {
  const won = await finish(db, row, {
    status: 'failed',
    raw: error.raw ?? { error: error.message },
    dispatch: { outcome: 'provider_error', errorStatus: error.status, errorMessage: error.message },
  });
  if (!won) return { kind: 'skipped', status: null };
  return { kind: 'provider_error', status: error.status, message: error.message };
}

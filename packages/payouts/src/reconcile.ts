import type { DbOrTx } from '@cowrie/db';

export interface ReconcileOptions {
  db: DbOrTx;
  /** A processing payout untouched for this long is a candidate (PAYOUT_RECONCILE_AFTER_MS). */
  olderThanMs: number;
  /** Whether a queued, delayed or running job exists for the payout. */
  hasLiveJob: (transactionId: number) => Promise<boolean>;
  /** Queues the payout again. */
  requeue: (transactionId: number) => Promise<void>;
  now?: Date;
  /** Rows per pass. */
  limit?: number;
}

/**
 * Finds `processing` payouts left without a live job (a crash between commit
 * and enqueue, a job lost with Redis, a rail that answered `pending`) and
 * queues them again. The worker then asks the rail by reference before
 * sending, so re-queuing never pays twice.
 */
export async function reconcilePayouts({ db, olderThanMs, hasLiveJob, requeue, now = new Date(), limit = 500 }: ReconcileOptions) {
  const stale = await db.ledgerTransaction.findMany({
    where: { type: 'debit', status: 'processing', updatedAt: { lt: new Date(now.getTime() - olderThanMs) } },
    select: { id: true },
    orderBy: { id: 'asc' },
    take: limit,
  });
  const requeued: number[] = [];
  for (const { id } of stale) {
    if (await hasLiveJob(id)) continue;
    await requeue(id);
    requeued.push(id);
  }
  return { checked: stale.length, requeued };
}

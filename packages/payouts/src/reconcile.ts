import type { DbOrTx } from '@cowrie/db';

/** A payout as the reconciler hands it on: what its job id is made of. */
export interface TStalePayout {
  id: number;
  reference: string;
}

export interface ReconcileOptions {
  db: DbOrTx;
  /** A processing payout untouched for this long is a candidate (PAYOUT_RECONCILE_AFTER_MS). */
  olderThanMs: number;
  /** Whether a queued, delayed or running job exists for the payout. */
  hasLiveJob: (payout: TStalePayout) => Promise<boolean>;
  /** Queues the payout again. */
  requeue: (payout: TStalePayout) => Promise<void>;
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
    select: { id: true, reference: true },
    orderBy: { id: 'asc' },
    take: limit,
  });
  const requeued: number[] = [];
  for (const payout of stale) {
    if (await hasLiveJob(payout)) continue;
    await requeue(payout);
    requeued.push(payout.id);
  }
  return { checked: stale.length, requeued };
}

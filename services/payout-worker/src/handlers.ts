import type { Job, Queue } from 'bullmq';
import { enqueue, payoutJobId, payoutsQueue, type HandlerMap, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { executePayout, reconcilePayouts, type TStalePayout } from '@cowrie/payouts';
import type { Rails } from '@cowrie/rails';

export interface HandlerContext {
  config: TConfig;
  db: PrismaClient;
  /** Plain pg: the payout's settle (see @cowrie/db `sql.ts`). */
  sql: SqlPool;
  redis: TRedis;
  rails: Rails;
  /** The payouts queue, for the reconciler's re-queues. */
  queue: Queue;
  log: Logger;
  job: Job;
  /** Aborted when the worker stops past its grace period: in-flight rail calls are abandoned. */
  signal: AbortSignal;
}

// States in which a payout's job will still run (or is running) without help.
const LIVE_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export async function hasLivePayoutJob(queue: Queue, payout: TStalePayout): Promise<boolean> {
  const job = await queue.getJob(payoutJobId(payout));
  return job ? LIVE_STATES.has(await job.getState()) : false;
}

/**
 * Queues `payout.execute` again unless a live job exists. A finished job kept
 * under the same id is removed first, since BullMQ ignores a re-add of a kept id.
 */
export async function requeuePayout(queue: Queue, payout: TStalePayout): Promise<boolean> {
  const jobId = payoutJobId(payout);
  const old = await queue.getJob(jobId);
  if (old) {
    if (LIVE_STATES.has(await old.getState())) return false;
    await old.remove().catch(() => undefined);
  }
  await enqueue(queue, payoutsQueue, 'payout.execute', { transactionId: payout.id }, { jobId });
  return true;
}

export const handlers: HandlerMap<typeof payoutsQueue.jobs, HandlerContext> = {
  'payout.execute': async ({ transactionId }, ctx) => {
    const outcome = await executePayout({ sql: ctx.sql, rails: ctx.rails, transactionId, log: ctx.log, signal: ctx.signal });
    ctx.log.info({ transactionId, outcome: outcome.kind }, 'payout executed');
    return outcome;
  },
  'payout.reconcile': async (_payload, ctx) => {
    const result = await reconcilePayouts({
      db: ctx.db,
      olderThanMs: ctx.config.PAYOUT_RECONCILE_AFTER_MS,
      hasLiveJob: (payout) => hasLivePayoutJob(ctx.queue, payout),
      requeue: async (payout) => void (await requeuePayout(ctx.queue, payout)),
    });
    if (result.requeued.length) ctx.log.warn({ requeued: result.requeued }, 'processing payouts without a live job re-queued');
    return result;
  },
};

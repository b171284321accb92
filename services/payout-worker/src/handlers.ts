import type { Job, Queue } from 'bullmq';
import { enqueue, isJobLive, requeueUnlessLive, type HandlerMap, type Logger, type Config, type RedisClient } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { executePayout, type OutcomeSchedule, type StalePayout, payoutJobId, payoutsQueue } from '@cowrie/payouts';
import type { ModeRails } from '@cowrie/rails';

export interface HandlerContext {
  config: Config;
  db: PrismaClient;
  /** Plain pg: the payout's settle (see @cowrie/db `sql.ts`). */
  sql: SqlPool;
  redis: RedisClient;
  rails: ModeRails;
  /** The payouts queue, for the reconciler's re-queues. */
  queue: Queue;
  log: Logger;
  job: Job;
  /** Aborted when the worker stops past its grace period: in-flight rail calls are abandoned. */
  signal: AbortSignal;
}

export function hasLivePayoutJob(queue: Queue, payout: StalePayout): Promise<boolean> {
  return isJobLive(queue, payoutJobId(payout));
}

/**
 * Queues `payout.execute` again unless a live job exists (requeueUnlessLive):
 * a failed job is replaced, so the new one gets the queue's attempts again.
 */
export async function requeuePayout(queue: Queue, payout: StalePayout): Promise<boolean> {
  const jobId = payoutJobId(payout);
  const outcome = await requeueUnlessLive(queue, jobId, () => enqueue(queue, payoutsQueue, 'payout.execute', { transactionId: payout.id }, { jobId }));
  return outcome !== 'live';
}

/** PAYOUT_UNKNOWN_* and PAYOUT_REVERSAL_*: when an unsettled or completed payout is asked about again, and for how long. */
export const outcomeScheduleOf = (config: Config): OutcomeSchedule => ({
  firstCheckMs: config.PAYOUT_UNKNOWN_FIRST_CHECK_MS,
  maxCheckMs: config.PAYOUT_UNKNOWN_MAX_CHECK_MS,
  graceMs: config.PAYOUT_UNKNOWN_GRACE_MS,
  reversalFirstCheckMs: config.PAYOUT_REVERSAL_FIRST_CHECK_MS,
  reversalWatchMs: Math.round(config.PAYOUT_REVERSAL_WATCH_HOURS * 3_600_000),
});

export const handlers: HandlerMap<typeof payoutsQueue.jobs, HandlerContext> = {
  'payout.execute': async ({ transactionId }, ctx) => {
    const outcome = await executePayout({
      sql: ctx.sql,
      rails: ctx.rails,
      transactionId,
      log: ctx.log,
      signal: ctx.signal,
      schedule: outcomeScheduleOf(ctx.config),
    });
    ctx.log.info({ transactionId, outcome: outcome.kind }, 'payout executed');
    return outcome;
  },
};

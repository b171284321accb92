import type { Job, Queue } from 'bullmq';
import { enqueue, type HandlerMap, type Logger, type Config, type RedisClient } from '@cowrie/core';
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

// States in which a payout's job will still run (or is running) without help.
const LIVE_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export async function hasLivePayoutJob(queue: Queue, payout: StalePayout): Promise<boolean> {
  const job = await queue.getJob(payoutJobId(payout));
  return job ? LIVE_STATES.has(await job.getState()) : false;
}

/**
 * Queues `payout.execute` again unless a live job exists. A finished job kept
 * under the same id is removed first, since BullMQ ignores a re-add of a kept id.
 */
export async function requeuePayout(queue: Queue, payout: StalePayout): Promise<boolean> {
  const jobId = payoutJobId(payout);
  const old = await queue.getJob(jobId);
  if (old) {
    if (LIVE_STATES.has(await old.getState())) return false;
    await old.remove().catch(() => undefined);
  }
  await enqueue(queue, payoutsQueue, 'payout.execute', { transactionId: payout.id }, { jobId });
  return true;
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

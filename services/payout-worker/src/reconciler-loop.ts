import type { Queue } from 'bullmq';
import type { Logger, Config } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import { checkDuePayouts, reconcilePayoutsExclusively } from '@cowrie/payouts';
import type { ModeRails } from '@cowrie/rails';
import { startPollingLoop, type PollingLoop } from '@cowrie/service-kit';
import { hasLivePayoutJob, outcomeScheduleOf, requeuePayout } from './handlers';

/**
 * The payout reconciler, a loop in every payout worker process. Each pass
 * asks the rail about payouts whose outcome check is due, and, every
 * PAYOUT_RECONCILE_EVERY_MS, re-queues `processing` payouts left without a
 * live job. It lives in the process, not in Redis: a flushed or replaced
 * Redis cannot take the recovery with it. Never two passes at once in one
 * process (startPollingLoop); across replicas the re-queue pass runs in one
 * at a time (an advisory lock) and the outcome checks are shared out (each
 * claimed with SKIP LOCKED).
 */
export function startPayoutReconciler(opts: { sql: SqlPool; queue: Queue; rails: ModeRails; config: Config; logger: Logger }): PollingLoop {
  const { config, logger } = opts;
  const schedule = outcomeScheduleOf(config);
  let lastRequeue = 0;
  return startPollingLoop({
    name: 'payout-reconciler',
    // Often enough for the first outcome check, which comes seconds after an unknown answer.
    everyMs: Math.min(config.PAYOUT_RECONCILE_EVERY_MS, config.PAYOUT_UNKNOWN_FIRST_CHECK_MS),
    logger,
    pass: async () => {
      const checked = await checkDuePayouts({ sql: opts.sql, rails: opts.rails, schedule, log: logger });
      if (checked.checked) logger.info(checked, 'payout outcomes checked with the rail');
      if (Date.now() - lastRequeue < config.PAYOUT_RECONCILE_EVERY_MS) return;
      lastRequeue = Date.now();
      const result = await reconcilePayoutsExclusively(opts.sql, {
        olderThanMs: config.PAYOUT_RECONCILE_AFTER_MS,
        hasLiveJob: (payout) => hasLivePayoutJob(opts.queue, payout),
        requeue: async (payout) => void (await requeuePayout(opts.queue, payout)),
      });
      if (result?.requeued.length) logger.warn({ requeued: result.requeued }, 'processing payouts without a live job re-queued');
    },
  });
}

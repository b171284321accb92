import type { Queue } from 'bullmq';
import type { Logger, Config } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import {
  checkDuePayouts,
  checkDueReversals,
  checkEarlierAttempts,
  oldestProcessingPayoutAgeSeconds,
  reconcilePayoutsExclusively,
  receivePayoutNotification,
} from '@cowrie/payouts';
import { countFoundLate, type CowrieMetrics } from '@cowrie/metrics';
import { sendDueSandboxReversals, type ModeRails } from '@cowrie/rails';
import { startPollingLoop, type PollingLoop } from '@cowrie/service-kit';
import { hasLivePayoutJob, outcomeScheduleOf, requeuePayout } from './handlers';

/**
 * The payout reconciler, a loop in every payout worker process. Each pass
 * asks the rail about payouts whose outcome check is due, about completed
 * payouts whose reversal check is due (the reversal watch) and, once after
 * the grace window, about each attempt a payout moved on from
 * (checkEarlierAttempts), and, every
 * PAYOUT_RECONCILE_EVERY_MS, re-queues `processing` payouts left without a
 * live job. It lives in the process, not in Redis: a flushed or replaced
 * Redis cannot take the recovery with it. Never two passes at once in one
 * process (startPollingLoop); across replicas the re-queue pass runs in one
 * at a time (an advisory lock) and the outcome checks are shared out (each
 * claimed with SKIP LOCKED).
 */
export function startPayoutReconciler(opts: {
  sql: SqlPool;
  queue: Queue;
  rails: ModeRails;
  config: Config;
  logger: Logger;
  /** Where the oldest processing payout's age goes (cowrie_payouts_processing_oldest_seconds), each pass. */
  metrics?: CowrieMetrics;
}): PollingLoop {
  const { config, logger } = opts;
  const schedule = outcomeScheduleOf(config);
  let lastRequeue = 0;
  return startPollingLoop({
    name: 'payout-reconciler',
    // Often enough for the first outcome check, which comes seconds after an unknown answer.
    everyMs: Math.min(config.PAYOUT_RECONCILE_EVERY_MS, config.PAYOUT_UNKNOWN_FIRST_CHECK_MS),
    logger,
    pass: async (signal) => {
      if (opts.metrics) opts.metrics.payoutsProcessingOldest.set(await oldestProcessingPayoutAgeSeconds(opts.sql));
      const checks = { sql: opts.sql, rails: opts.rails, schedule, log: logger, signal };
      const checked = await checkDuePayouts(checks);
      if (checked.checked) logger.info({ checked: checked.checked, outcomes: checked.outcomes }, 'payout outcomes checked with the rail');
      for (const rail of checked.lostByRail) opts.metrics?.payoutsLostByRail.inc({ rail });
      if (opts.metrics) countFoundLate(opts.metrics, checked.found);
      const watched = await checkDueReversals(checks);
      if (watched.checked) logger.info(watched, 'completed payouts checked for reversals');
      const earlier = await checkEarlierAttempts(checks);
      if (opts.metrics) countFoundLate(opts.metrics, earlier.found);
      if (signal.aborted) return;
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

/** How often the sandbox bank's due reversals are sent (it returns a transfer about 2 s after it completed). */
const SANDBOX_NOTICES_EVERY_MS = 500;

/**
 * The sandbox bank's notifications: each reversal it made (a transfer to
 * 0000000003) goes through the path a provider's notification takes
 * (receivePayoutNotification), once, from whichever replica claims it.
 */
export function startSandboxNotices(opts: { sql: SqlPool; rails: ModeRails; logger: Logger }): PollingLoop {
  return startPollingLoop({
    name: 'sandbox-rail-notices',
    everyMs: SANDBOX_NOTICES_EVERY_MS,
    logger: opts.logger,
    pass: async () => {
      await sendDueSandboxReversals(opts.sql, async ({ reference, payload }) => {
        await receivePayoutNotification(
          { sql: opts.sql, rails: opts.rails, log: opts.logger },
          { provider: 'sandbox', event: 'transfer.reversed', reference, payload },
        );
      });
    },
  });
}

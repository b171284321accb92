import type { Queue, Worker } from 'bullmq';
import { createServiceLogger, type Logger, type Config } from '@cowrie/core';
import { payoutsQueue, type PayoutOutcome } from '@cowrie/payouts';
import { createModeRails, mapModeRails } from '@cowrie/rails';
import { countFoundLate, instrumentCalls, primePayoutRailCounters, railObserver, type CowrieMetrics } from '@cowrie/metrics';
import { startServiceWorker, type RunningWorker } from '@cowrie/service-kit';
import { handlers } from './handlers';
import { startPayoutReconciler, startSandboxNotices } from './reconciler-loop';
import { startLedgerAuditLoop } from './ledger-audit-loop';

export interface RunningPayoutWorker extends RunningWorker {
  worker: Worker;
  queue: Queue;
}

/**
 * Id of the BullMQ job scheduler that ran the reconciler before it became a
 * process loop; removed on start so old deployments' schedules stop firing.
 */
const LEGACY_RECONCILE_SCHEDULER_ID = 'payout-reconcile';

export interface StartPayoutWorkerOptions {
  /** Job durations and failures, rail call latency and errors, queue depth. */
  metrics?: CowrieMetrics;
}

/**
 * Starts the payout-worker: connects, waits for Postgres and Redis, consumes
 * the payouts queue and runs the reconciler loop (startPayoutReconciler).
 * stop() lets in-flight payouts finish within SHUTDOWN_GRACE_MS, then
 * abandons their rail calls, leaving the rows `processing` for a retry.
 */
export async function startPayoutWorker(
  config: Config,
  logger: Logger = createServiceLogger(config, 'payout-worker'),
  options: StartPayoutWorkerOptions = {},
): Promise<RunningPayoutWorker> {
  const { metrics } = options;
  if (metrics) primePayoutRailCounters(metrics, config.PAYOUT_RAILS);
  const { worker, queue, db, redis, stop } = await startServiceWorker({
    name: 'payout-worker',
    config,
    logger,
    metrics,
    outcomeMetrics: (m, job, result) => {
      // The job's result is the catalog's PayoutOutcome; typed here so a renamed field does not compile.
      const outcome = result as PayoutOutcome | null;
      if (job.name === 'payout.execute' && typeof outcome?.kind === 'string') m.payouts.inc({ outcome: outcome.kind });
      if (outcome?.kind === 'skipped' && outcome.found) countFoundLate(m, [outcome.found]);
    },
    def: payoutsQueue,
    handlers,
    concurrency: config.PAYOUT_WORKER_CONCURRENCY,
    // A job whose worker died is handed to another once its lock lapses.
    workerOptions: { lockDuration: config.PAYOUT_JOB_LOCK_MS, stalledInterval: config.PAYOUT_JOB_LOCK_MS },
    queue: 'on_own_connection',
    // Rail calls still running past the grace period are abandoned; the payout stays `processing`.
    pastGrace: { kind: 'abort', reason: 'payout worker stopping', unwindMs: 2000 },
    wire: ({ db, sql, redis, queue, graceOver }) => {
      const modeRails = createModeRails(config, { redis, sql });
      const health = modeRails.live.health;
      if (metrics && health) metrics.watchRailHealth(() => health.states(modeRails.live.order));
      const rails = metrics ? mapModeRails(modeRails, (rail) => instrumentCalls(rail, railObserver(metrics, `payout:${rail.id}`))) : modeRails;
      return {
        makeCtx: (job, log) => ({ config, db, sql, redis, rails, queue, log, job, signal: graceOver }),
        ready: async () => {
          await queue.removeJobScheduler(LEGACY_RECONCILE_SCHEDULER_ID).catch(() => undefined);
        },
        startLoops: () => [
          startPayoutReconciler({ sql, queue, rails, config, logger, metrics }),
          startSandboxNotices({ sql, rails, logger }),
          ...startLedgerAuditLoop({ db, everyMs: config.LEDGER_AUDIT_EVERY_MS, logger, metrics }),
        ],
      };
    },
  });
  return { worker, queue, db, redis, stop };
}

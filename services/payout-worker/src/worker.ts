import type { Queue, Worker } from 'bullmq';
import { createServiceLogger, createRedis, openQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { payoutsQueue } from '@cowrie/payouts';
import { createDb, createSqlPool, type PrismaClient } from '@cowrie/db';
import { createModeRails, mapModeRails } from '@cowrie/rails';
import { instrumentCalls, instrumentWorker, railObserver, type CowrieMetrics } from '@cowrie/metrics';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { handlers, type HandlerContext } from './handlers';
import { startPayoutReconciler } from './reconciler-loop';

export interface RunningPayoutWorker {
  worker: Worker;
  queue: Queue;
  db: PrismaClient;
  redis: TRedis;
  stop: () => Promise<void>;
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
  config: TConfig,
  logger: Logger = createServiceLogger(config, 'payout-worker'),
  options: StartPayoutWorkerOptions = {},
): Promise<RunningPayoutWorker> {
  const { metrics } = options;
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const redis = createRedis(config, { name: 'payout-worker', logger });
  const connection = createRedis(config, { forBullmq: true, name: 'payout-worker-queue', logger });
  const queueConnection = createRedis(config, { forBullmq: true, name: 'payout-worker-producer', logger });
  const queue = openQueue(payoutsQueue, { connection: queueConnection, prefix: config.QUEUE_PREFIX });
  const rails = metrics
    ? mapModeRails(createModeRails(config, { redis, sql }), (rail) => instrumentCalls(rail, railObserver(metrics, `payout:${rail.id}`)))
    : createModeRails(config, { redis, sql });
  const abort = new AbortController();
  const worker = await startQueueWorker<typeof payoutsQueue.jobs, HandlerContext>({
    def: payoutsQueue,
    handlers,
    makeCtx: (job, log) => ({ config, db, sql, redis, rails, queue, log, job, signal: abort.signal }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.PAYOUT_WORKER_CONCURRENCY,
    logger,
    ready: async () => {
      await waitForDependencies(db, redis, logger);
      await queue.removeJobScheduler(LEGACY_RECONCILE_SCHEDULER_ID).catch(() => undefined);
    },
    // A job whose worker died is handed to another once its lock lapses.
    workerOptions: { lockDuration: config.PAYOUT_JOB_LOCK_MS, stalledInterval: config.PAYOUT_JOB_LOCK_MS },
  });
  if (metrics) {
    instrumentWorker(metrics, worker);
    metrics.watchQueues([queue]);
  }
  const reconciler = startPayoutReconciler({ sql, queue, rails, config, logger });
  return {
    worker,
    queue,
    db,
    redis,
    stop: async () => {
      await reconciler.stop();
      const abandon = setTimeout(() => abort.abort(new Error('payout worker stopping')), config.SHUTDOWN_GRACE_MS);
      await closeWorker(worker, config.SHUTDOWN_GRACE_MS + 2000);
      clearTimeout(abandon);
      await queue.close().catch(() => undefined);
      connection.disconnect();
      queueConnection.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
    },
  };
}

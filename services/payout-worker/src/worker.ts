import type { Worker } from 'bullmq';
import { createServiceLogger, createRedis, payoutsQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { handlers, type HandlerContext } from './handlers';

export interface RunningPayoutWorker {
  worker: Worker;
  db: PrismaClient;
  redis: TRedis;
  stop: () => Promise<void>;
}

/** Starts the payout-worker: connects, waits for Postgres and Redis, then consumes '${payoutsQueue.name}'. */
export async function startPayoutWorker(config: TConfig, logger: Logger = createServiceLogger(config, 'payout-worker')): Promise<RunningPayoutWorker> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'payout-worker' });
  const connection = createRedis(config, { forBullmq: true, name: 'payout-worker-queue' });
  const worker = await startQueueWorker<typeof payoutsQueue.jobs, HandlerContext>({
    def: payoutsQueue,
    handlers,
    makeCtx: (job, log) => ({ config, db, redis, log, job }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.PAYOUT_WORKER_CONCURRENCY,
    logger,
    ready: () => waitForDependencies(db, redis, logger),
  });
  return {
    worker,
    db,
    redis,
    stop: async () => {
      await closeWorker(worker, config.SHUTDOWN_GRACE_MS);
      connection.disconnect();
      await Promise.allSettled([db.$disconnect(), redis.quit()]);
    },
  };
}

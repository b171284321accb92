import type { Worker } from 'bullmq';
import { createServiceLogger, createRedis, verificationsQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { handlers, type HandlerContext } from './handlers';

export interface RunningVerificationWorker {
  worker: Worker;
  db: PrismaClient;
  redis: TRedis;
  stop: () => Promise<void>;
}

/** Starts the verification-dispatcher: connects, waits for Postgres and Redis, then consumes '${verificationsQueue.name}'. */
export async function startVerificationWorker(config: TConfig, logger: Logger = createServiceLogger(config, 'verification-dispatcher')): Promise<RunningVerificationWorker> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'verification-dispatcher' });
  const connection = createRedis(config, { forBullmq: true, name: 'verification-dispatcher-queue' });
  const worker = await startQueueWorker<typeof verificationsQueue.jobs, HandlerContext>({
    def: verificationsQueue,
    handlers,
    makeCtx: (job, log) => ({ config, db, redis, log, job }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.VERIFICATION_WORKER_CONCURRENCY,
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

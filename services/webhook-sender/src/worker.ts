import type { Worker } from 'bullmq';
import { createServiceLogger, createRedis, webhooksQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { handlers, type HandlerContext } from './handlers';

export interface RunningWebhookWorker {
  worker: Worker;
  db: PrismaClient;
  redis: TRedis;
  stop: () => Promise<void>;
}

/** Starts the webhook-sender: connects, waits for Postgres and Redis, then consumes '${webhooksQueue.name}'. */
export async function startWebhookWorker(config: TConfig, logger: Logger = createServiceLogger(config, 'webhook-sender')): Promise<RunningWebhookWorker> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'webhook-sender' });
  const connection = createRedis(config, { forBullmq: true, name: 'webhook-sender-queue' });
  const worker = await startQueueWorker<typeof webhooksQueue.jobs, HandlerContext>({
    def: webhooksQueue,
    handlers,
    makeCtx: (job, log) => ({ config, db, redis, log, job }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
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

import type { Worker } from 'bullmq';
import { createServiceLogger, createRedis, verificationsQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { createDeliveryProviders, type DeliveryProviders } from '@cowrie/verification';
import { handlers, type HandlerContext } from './handlers';

export interface RunningVerificationWorker {
  worker: Worker;
  db: PrismaClient;
  redis: TRedis;
  providers: DeliveryProviders;
  stop: () => Promise<void>;
}

/** Starts the verification-dispatcher: connects, waits for Postgres and Redis, then consumes '${verificationsQueue.name}'. */
export async function startVerificationWorker(config: TConfig, logger: Logger = createServiceLogger(config, 'verification-dispatcher')): Promise<RunningVerificationWorker> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'verification-dispatcher' });
  const connection = createRedis(config, { forBullmq: true, name: 'verification-dispatcher-queue' });
  // Built once per process: the SMTP transport and HTTP client are reused across jobs.
  const providers = createDeliveryProviders(config, redis);
  const worker = await startQueueWorker<typeof verificationsQueue.jobs, HandlerContext>({
    def: verificationsQueue,
    handlers,
    makeCtx: (job, log) => ({ config, db, redis, providers, log, job }),
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
    providers,
    stop: async () => {
      await closeWorker(worker, config.SHUTDOWN_GRACE_MS);
      await providers.close();
      connection.disconnect();
      await Promise.allSettled([db.$disconnect(), redis.quit()]);
    },
  };
}

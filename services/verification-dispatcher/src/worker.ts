import type { Worker } from 'bullmq';
import { createServiceLogger, createRedis, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { createDeliveryProviders, type DeliveryProvider, type DeliveryProviders, verificationsQueue } from '@cowrie/verification';
import { instrumentCalls, instrumentWorker, railObserver, type CowrieMetrics } from '@cowrie/metrics';
import { handlers, type HandlerContext } from './handlers';

export interface RunningVerificationWorker {
  worker: Worker;
  db: PrismaClient;
  redis: TRedis;
  providers: DeliveryProviders;
  stop: () => Promise<void>;
}

/** What a caller may add to the dispatcher. */
export interface StartVerificationWorkerOptions {
  /** Job durations and failures, delivery outcomes, provider call latency and errors. */
  metrics?: CowrieMetrics;
}

/** The providers with every `send` timed per provider id. */
function instrumentProviders(providers: DeliveryProviders, metrics: CowrieMetrics): DeliveryProviders {
  const wrapped = new Map<DeliveryProvider, DeliveryProvider>();
  return {
    forChannel(channel, mode) {
      const provider = providers.forChannel(channel, mode);
      let w = wrapped.get(provider);
      if (!w) wrapped.set(provider, (w = instrumentCalls(provider, railObserver(metrics, `verification:${provider.id}`), ['send'])));
      return w;
    },
    close: () => providers.close(),
  };
}

/** Starts the verification-dispatcher: connects, waits for Postgres and Redis, then consumes the `verifications` queue (`verificationsQueue`). */
export async function startVerificationWorker(
  config: TConfig,
  logger: Logger = createServiceLogger(config, 'verification-dispatcher'),
  options: StartVerificationWorkerOptions = {},
): Promise<RunningVerificationWorker> {
  const { metrics } = options;
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const redis = createRedis(config, { name: 'verification-dispatcher', logger });
  const connection = createRedis(config, { forBullmq: true, name: 'verification-dispatcher-queue', logger });
  // Built once per process: the SMTP transport and HTTP client are reused across jobs.
  const raw = createDeliveryProviders(config, redis);
  const providers = metrics ? instrumentProviders(raw, metrics) : raw;
  const worker = await startQueueWorker<typeof verificationsQueue.jobs, HandlerContext>({
    def: verificationsQueue,
    handlers,
    makeCtx: (job, log) => ({ config, sql, redis, providers, log, job }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.VERIFICATION_WORKER_CONCURRENCY,
    workerOptions: { lockDuration: config.VERIFY_JOB_LOCK_MS, stalledInterval: config.VERIFY_JOB_LOCK_MS },
    logger,
    ready: () => waitForDependencies(db, redis, logger),
  });
  if (metrics) {
    instrumentWorker(metrics, worker, {
      onCompleted: (job, result) => {
        const outcome = (result as { outcome?: unknown } | null)?.outcome;
        if (job.name === 'verification.deliver' && typeof outcome === 'string') metrics.verificationOutcomes.inc({ stage: 'delivery', outcome });
      },
    });
  }
  return {
    worker,
    db,
    redis,
    providers,
    stop: async () => {
      await closeWorker(worker, config.SHUTDOWN_GRACE_MS);
      await providers.close();
      connection.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
    },
  };
}

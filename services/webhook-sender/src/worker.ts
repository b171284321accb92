import type { Queue, Worker } from 'bullmq';
import { createServiceLogger, createRedis, openQueue, type Logger, type TConfig, type TRedis } from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient } from '@cowrie/db';
import { closeWorker, startQueueWorker, waitForDependencies } from '@cowrie/service-kit';
import { createAddressPolicy, createDeliveryStore, createWebhookHttpClient, type Resolver, webhooksQueue } from '@cowrie/webhooks';
import { instrumentWorker, type CowrieMetrics } from '@cowrie/metrics';
import { handlers, type HandlerContext } from './handlers';
import { startRelayLoop } from './relay-loop';

export interface RunningWebhookWorker {
  worker: Worker;
  queue: Queue;
  db: PrismaClient;
  redis: TRedis;
  stop: () => Promise<void>;
}

export interface StartWebhookWorkerOptions {
  /** Run the outbox relay poll in this process (default true). */
  relay?: boolean;
  /** Host name resolver for deliveries; the system resolver by default. */
  resolver?: Resolver;
  /** Job durations and failures, delivery outcomes and attempts, queue depth. */
  metrics?: CowrieMetrics;
}

/**
 * Starts the webhook-sender: connects, waits for Postgres and Redis, then
 * consumes the webhooks queue (`webhooksQueue`: deliveries and relay wake-ups) and polls
 * the outbox.
 */
export async function startWebhookWorker(
  config: TConfig,
  logger: Logger = createServiceLogger(config, 'webhook-sender'),
  options: StartWebhookWorkerOptions = {},
): Promise<RunningWebhookWorker> {
  // A malformed WEBHOOK_ALLOWED_CIDRS stops start-up here, before any connection.
  const policy = createAddressPolicy(config.WEBHOOK_ALLOWED_CIDRS);
  const http = createWebhookHttpClient({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, policy, resolver: options.resolver });
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const deliveries = createDeliveryStore(sql);
  const redis = createRedis(config, { name: 'webhook-sender', logger });
  const connection = createRedis(config, { forBullmq: true, name: 'webhook-sender-queue', logger });
  const queue = openQueue(webhooksQueue, { connection, prefix: config.QUEUE_PREFIX });
  const worker = await startQueueWorker<typeof webhooksQueue.jobs, HandlerContext>({
    def: webhooksQueue,
    handlers,
    makeCtx: (job, log) => ({ config, sql, redis, log, job, queue, http, deliveries }),
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
    logger,
    ready: () => waitForDependencies(db, redis, logger),
  });
  const { metrics } = options;
  if (metrics) {
    instrumentWorker(metrics, worker, {
      onCompleted: (job, result) => {
        const outcome = result as { kind?: unknown; attempts?: unknown } | null;
        if (job.name !== 'webhook.deliver' || typeof outcome?.kind !== 'string') return;
        metrics.webhookDeliveries.inc({ outcome: outcome.kind });
        if (typeof outcome.attempts === 'number' && outcome.kind !== 'skipped') metrics.webhookAttempts.observe({ outcome: outcome.kind }, outcome.attempts);
      },
    });
    metrics.watchQueues([queue]);
  }
  const loop = options.relay === false ? undefined : startRelayLoop({ db, sql, queue, config, logger });
  return {
    worker,
    queue,
    db,
    redis,
    stop: async () => {
      await loop?.stop();
      await closeWorker(worker, config.SHUTDOWN_GRACE_MS);
      await queue.close();
      await http.close();
      connection.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
    },
  };
}

import type { Queue, Worker } from 'bullmq';
import { createServiceLogger, type Logger, type Config } from '@cowrie/core';
import { startServiceWorker, type RunningWorker } from '@cowrie/service-kit';
import {
  createAddressPolicy,
  createDeliveryStore,
  createEndpointSlots,
  createWebhookHttpClient,
  type DeliveredJobResult,
  type Resolver,
  webhooksQueue,
} from '@cowrie/webhooks';
import type { CowrieMetrics } from '@cowrie/metrics';
import { handlers } from './handlers';
import { startRelayLoop } from './relay-loop';

export interface RunningWebhookWorker extends RunningWorker {
  worker: Worker;
  queue: Queue;
}

export interface StartWebhookWorkerOptions {
  /** Run the outbox relay poll in this process (default true). */
  relay?: boolean;
  /** Host name resolver for deliveries; the system resolver by default. */
  resolver?: Resolver;
  /** Job durations and failures, delivery outcomes and attempts, queue depth. */
  metrics?: CowrieMetrics;
  /** The clock of signatures, outcomes and the automatic disable; the system clock by default (tests move it). */
  now?: () => Date;
}

/**
 * Starts the webhook-sender: connects, waits for Postgres and Redis, then
 * consumes the webhooks queue (`webhooksQueue`: deliveries and relay wake-ups)
 * and polls the outbox (startRelayLoop, unless `relay` is false).
 */
export async function startWebhookWorker(
  config: Config,
  logger: Logger = createServiceLogger(config, 'webhook-sender'),
  options: StartWebhookWorkerOptions = {},
): Promise<RunningWebhookWorker> {
  // A malformed WEBHOOK_ALLOWED_CIDRS stops start-up here, before any connection.
  const policy = createAddressPolicy(config.WEBHOOK_ALLOWED_CIDRS);
  const http = createWebhookHttpClient({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, policy, resolver: options.resolver });
  const { worker, queue, db, redis, stop } = await startServiceWorker({
    name: 'webhook-sender',
    config,
    logger,
    metrics: options.metrics,
    outcomeMetrics: (metrics, job, result) => {
      // The job's result is the catalog's DeliveredJobResult (handlers.ts); typed here so a renamed field does not compile.
      const outcome = result as DeliveredJobResult | null;
      if (job.name !== 'webhook.deliver' || typeof outcome?.kind !== 'string') return;
      metrics.webhookDeliveries.inc({ outcome: outcome.kind });
      if (outcome.kind === 'skipped') return;
      metrics.webhookAttempts.observe({ outcome: outcome.kind }, outcome.attempts);
      metrics.webhookEndpointDeliveries.inc({ endpoint: String(outcome.endpointId), outcome: outcome.kind });
    },
    def: webhooksQueue,
    handlers,
    concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
    queue: 'on_worker_connection',
    wire: ({ db, sql, redis, queue }) => {
      const deliveries = createDeliveryStore(sql, { afterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS, minFailures: config.WEBHOOK_DISABLE_MIN_FAILURES });
      const slots = createEndpointSlots(redis, {
        keyPrefix: config.REDIS_KEY_PREFIX,
        perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
        attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      });
      const now = options.now ?? (() => new Date());
      return {
        makeCtx: (job, log) => ({ config, sql, redis, log, job, queue, http, deliveries, slots, now }),
        startLoops: () => (options.relay === false ? [] : [startRelayLoop({ db, sql, queue, config, logger })]),
        close: () => http.close(),
      };
    },
  });
  return { worker, queue, db, redis, stop };
}

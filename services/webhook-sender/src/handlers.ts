import type { Job, Queue } from 'bullmq';
import type { HandlerMap, Logger, Config, RedisClient } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import { deliverWebhook, relayOutbox, type DeliveryStore, type WebhookHttpClient, type webhooksQueue } from '@cowrie/webhooks';

export interface HandlerContext {
  config: Config;
  /** Plain pg: each delivery's read and outcome (see @cowrie/db `sql.ts`). */
  sql: SqlPool;
  redis: RedisClient;
  log: Logger;
  job: Job;
  /** The webhooks queue, where the relay puts delivery jobs. */
  queue: Queue;
  http: WebhookHttpClient;
  deliveries: DeliveryStore;
  /** The clock of signatures and outcomes (a test may move it). */
  now: () => Date;
}

export const handlers: HandlerMap<typeof webhooksQueue.jobs, HandlerContext> = {
  // A wake-up: relay now rather than at the next poll.
  'outbox.relay': async (_payload, ctx) => relayOutbox({ sql: ctx.sql, queue: ctx.queue, batchSize: ctx.config.WEBHOOK_RELAY_BATCH_SIZE }),
  'webhook.deliver': async (dispatch, ctx) => {
    const outcome = await deliverWebhook({
      deliveries: ctx.deliveries,
      http: ctx.http,
      encryptionKey: ctx.config.ENCRYPTION_KEY,
      dispatch,
      log: ctx.log,
      now: ctx.now,
    });
    // The job's return value is JSON: the log row id goes out as a number.
    return outcome.kind === 'skipped' ? outcome : { ...outcome, logId: Number(outcome.logId) };
  },
};

import { DelayedError, type Job, type Queue } from 'bullmq';
import type { HandlerMap, Logger, Config, RedisClient } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import { deliverWebhook, relayOutbox, type DeliveryStore, type EndpointSlots, type WebhookHttpClient, type webhooksQueue } from '@cowrie/webhooks';

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
  /** Each endpoint's in-flight slots (WEBHOOK_ENDPOINT_CONCURRENCY), shared by every sender through Redis. */
  slots: EndpointSlots;
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
      slots: ctx.slots,
      // Every earlier start of this job found its endpoint full (or was cut short by a crash).
      timesDeferred: Math.max(0, ctx.job.attemptsStarted - 1),
    });
    if (outcome.kind === 'deferred') {
      // Its endpoint is full: back to the delayed set, holding no worker slot and counting no attempt.
      ctx.log.debug({ endpointId: outcome.endpointId, retryInMs: outcome.retryInMs }, 'endpoint at its in-flight limit; delivery put back for later');
      await ctx.job.moveToDelayed(Date.now() + outcome.retryInMs, ctx.job.token);
      throw new DelayedError();
    }
    // The job's return value is JSON: the log row id goes out as a number.
    return outcome.kind === 'skipped' ? outcome : { ...outcome, logId: Number(outcome.logId) };
  },
};

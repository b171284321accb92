import type { Job } from 'bullmq';
import type { HandlerMap, Logger, Config, RedisClient } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import { deliverVerification, type DeliveryProviders, type verificationsQueue } from '@cowrie/verification';

export interface HandlerContext {
  config: Config;
  /** Plain pg: each delivery's read and write (see @cowrie/db `sql.ts`). */
  sql: SqlPool;
  redis: RedisClient;
  providers: DeliveryProviders;
  log: Logger;
  job: Job;
}

export const handlers: HandlerMap<typeof verificationsQueue.jobs, HandlerContext> = {
  // The outcome ({kind: sent | failed | skipped}) is the job's return value:
  // the gateway answers from it, and reads the row when it has none.
  'verification.deliver': (payload, ctx) =>
    deliverVerification({ sql: ctx.sql, redis: ctx.redis, config: ctx.config, providers: ctx.providers, log: ctx.log }, payload),
};

import type { Job } from 'bullmq';
import type { HandlerMap, Logger, TConfig, TRedis, verificationsQueue } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { deliverVerification, type DeliveryProviders } from '@cowrie/verification';

export interface HandlerContext {
  config: TConfig;
  db: PrismaClient;
  redis: TRedis;
  providers: DeliveryProviders;
  log: Logger;
  job: Job;
}

export const handlers: HandlerMap<typeof verificationsQueue.jobs, HandlerContext> = {
  // The outcome ({outcome: sent | failed | skipped}) is the job's return value;
  // the gateway reads the row itself, Postgres being the source of truth.
  'verification.deliver': (payload, ctx) =>
    deliverVerification({ db: ctx.db, redis: ctx.redis, config: ctx.config, providers: ctx.providers, log: ctx.log }, payload),
};

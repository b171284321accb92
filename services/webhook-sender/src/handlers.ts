import type { Job } from 'bullmq';
import type { HandlerMap, Logger, TConfig, TRedis, webhooksQueue } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

export interface HandlerContext {
  config: TConfig;
  db: PrismaClient;
  redis: TRedis;
  log: Logger;
  job: Job;
}

export const handlers: HandlerMap<typeof webhooksQueue.jobs, HandlerContext> = {
  'outbox.relay': async () => ({ relayed: 0 }),
  'webhook.deliver': async () => {
    throw new Error('webhook delivery is not built yet (webhooks issue)');
  },
};

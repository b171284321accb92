import type { Job } from 'bullmq';
import type { HandlerMap, Logger, TConfig, TRedis, verificationsQueue } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

export interface HandlerContext {
  config: TConfig;
  db: PrismaClient;
  redis: TRedis;
  log: Logger;
  job: Job;
}

export const handlers: HandlerMap<typeof verificationsQueue.jobs, HandlerContext> = {
  'verification.deliver': async () => {
    throw new Error('code delivery is not built yet (verification issue)');
  },
};

import type { Job } from 'bullmq';
import type { HandlerMap, Logger, TConfig, TRedis, payoutsQueue } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

export interface HandlerContext {
  config: TConfig;
  db: PrismaClient;
  redis: TRedis;
  log: Logger;
  job: Job;
}

export const handlers: HandlerMap<typeof payoutsQueue.jobs, HandlerContext> = {
  'payout.execute': async () => {
    throw new Error('payout execution is not built yet (payouts issue)');
  },
  'payout.reconcile': async () => ({ requeued: 0 }),
};

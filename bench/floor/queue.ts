// The queue of the `queue_floor` scenario: one job that does nothing, with the
// payouts queue's default options, so BullMQ does per job what it does for a
// payout (its add, take and finish, the finished job kept for an hour).
import { z } from 'zod';
import { defineQueue, jobOf, loadConfig, type Config } from '@cowrie/core';
import { payoutsQueue } from '@cowrie/payouts';

export const floorQueue = defineQueue(
  'bench-floor',
  { 'floor.hop': jobOf<{ done: true }>()(z.object({ n: z.number().int() })) },
  payoutsQueue.defaultJobOptions,
);

/** The services' configuration as the stack passes it to every process it starts (REDIS_URL, QUEUE_PREFIX). */
export const floorConfig = (): Config => loadConfig();

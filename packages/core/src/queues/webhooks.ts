import { z } from 'zod';
import { defineQueue } from './define-queue';

export const webhooksQueue = defineQueue(
  'webhooks',
  {
    // Fans unrelayed outbox events out to matching endpoints.
    'outbox.relay': { schema: z.object({}) },
    // Delivers one (event, endpoint) pair with the interface's 3 attempts.
    'webhook.deliver': { schema: z.object({ deliveryId: z.string().uuid() }) },
  },
  // Retries of a delivery follow the interface's own schedule inside the job;
  // BullMQ itself does not retry.
  { attempts: 1, removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
);

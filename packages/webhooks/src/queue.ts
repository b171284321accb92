import { z } from 'zod';
import { defineQueue, jobOf } from '@cowrie/core';
import type { WebhookAttempt } from './send-delivery';

export const webhooksQueue = defineQueue(
  'webhooks',
  {
    // Fans unrelayed outbox events out to matching endpoints.
    'outbox.relay': jobOf<{ events: number; deliveries: number }>()(z.object({})),
    // Delivers one dispatch of an (event, endpoint) pair with the API's 3 attempts: its first (0), or a resend.
    'webhook.deliver': jobOf<DeliveredJobResult>()(z.object({ deliveryId: z.string().uuid(), dispatch: z.number().int().min(0).default(0) })),
  },
  // Retries of a delivery follow the API's own schedule inside the job;
  // BullMQ itself does not retry.
  { attempts: 1, removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
);

/** A delivery job's result: the outcome, with the log row id as a JSON number. */
export type DeliveredJobResult =
  Extract<WebhookAttempt, { kind: 'skipped' }> | (Omit<Exclude<WebhookAttempt, { kind: 'skipped' }>, 'logId'> & { logId: number });

import { z } from 'zod';
import { accountNumberField, amountField } from '@cowrie/core';
import { UNMATCHED_REASONS, type SandboxTransferInResult } from '@cowrie/deposits';
import { PING_EVENT } from '@cowrie/events';
import type { SandboxCode } from '@cowrie/verification';
import type { RecordedSampleEvent } from '@cowrie/webhooks';
import { ZAmount, ZTimestamp, named, responseOf } from '../../openapi/schemas';
import { TRIGGERABLE_EVENTS } from '../../openapi/webhooks';

// The test helpers: the requests and answers of their routes.

export const ZTransferInRequest = named(
  'TestTransferInRequest',
  z.object({
    account_number: accountNumberField.meta({ description: "The number of one of this workspace's reserved accounts or one-off collections" }),
    amount: amountField(),
  }),
);

export const ZTransferIn = named(
  'TestTransferIn',
  responseOf<SandboxTransferInResult>()(
    z.object({
      status: z.enum(['credited', 'unmatched']),
      reason: z.enum(UNMATCHED_REASONS).nullable().meta({ description: 'Why an unmatched transfer credited nobody; null when credited' }),
      channel: z.enum(['collection_va', 'reserved_va']).nullable(),
      account_number: z.string(),
      amount: ZAmount,
      currency: z.string().meta({ description: "The account's currency" }),
      provider_reference: z.string().meta({ description: "The sandbox bank's reference of the transfer (collection.successful's provider_reference)" }),
      transaction_reference: z.string().nullable().meta({ description: "The credit's ledger reference (crd_), when credited" }),
      collection_id: z.number().int().nullable(),
      reserved_account_id: z.number().int().nullable(),
    }),
  ),
);

export const ZCodeParams = z.object({ reference: z.string().meta({ description: 'The verification reference (a UUID)' }) });
export const ZSandboxCode = named(
  'TestVerificationCode',
  responseOf<SandboxCode>()(
    z.object({
      reference: z.string().meta({ format: 'uuid' }),
      code: z.string().meta({ description: 'The one-time code the sandbox sent' }),
      sent_at: ZTimestamp,
    }),
  ),
);

export const ZPayoutParams = z.object({ reference: z.string().max(100).meta({ description: "The payout's reference (snd_…)" }) });

const TRIGGERABLE = TRIGGERABLE_EVENTS.map((e) => e.name) as [string, ...string[]];
const ONE_OF_TRIGGERABLE = `must be one of ${TRIGGERABLE.join(', ')}`;
export const ZTriggerRequest = named(
  'TestWebhookTriggerRequest',
  z.object({
    event: z
      .enum(TRIGGERABLE, {
        // ping is an event of the catalog, but it goes to one endpoint (its data names it), whatever that endpoint subscribes to.
        error: (issue) =>
          issue.input === PING_EVENT
            ? `${ONE_OF_TRIGGERABLE}: a ping goes to one endpoint, sent by POST /webhook-endpoints/{id}/test (the dashboard's test action)`
            : ONE_OF_TRIGGERABLE,
      })
      .meta({ description: 'The event to send a sample of' }),
  }),
);
export const ZTriggered = named(
  'TestWebhookTrigger',
  responseOf<RecordedSampleEvent>()(
    z.object({
      event: z.string(),
      data: z.unknown().meta({ description: "The sample `data` every delivery carries; it validates against the event's schema (document `webhooks`)" }),
      endpoints: z.number().int().meta({ description: "The workspace's active endpoints subscribed to the event: each gets one delivery" }),
    }),
  ),
);

import { z } from 'zod';
import type { Scope } from '@cowrie/accounts';
import {
  collectionExpiredPayload,
  collectionSuccessfulPayload,
  reservedAccountCreatedPayload,
  sampleCollectionExpiredData,
  sampleCollectionSuccessfulData,
  sampleReservedAccountCreatedData,
} from '@cowrie/deposits';
import { sampleTransferEventData } from '@cowrie/payouts';
import { eventData as verificationEventData, sampleVerificationEventData } from '@cowrie/verification';
import {
  ENDPOINT_DISABLED_EVENT,
  PING_EVENT,
  pingEventData,
  sampleEndpointDisabledData,
  type EndpointDisabledEventData,
  type WebhookBody,
} from '@cowrie/webhooks';
import { ZCustomer } from '../routes/deposits';
import { ZTransaction } from '../routes/payouts';
import { ZVerificationChannel } from '../api/verifications/schemas';
import { ZAmount, ZTimestamp, named, responseOf } from './schemas';

const ZEventId = z.string().meta({
  format: 'uuid',
  description: 'The delivery id, also sent as X-Cowrie-Delivery: the same on every retry of this delivery, so de-duplicate on it',
});
const ZLivemode = z.boolean().meta({ description: "false for an event of the workspace's test mode" });

/** A delivery's body as the delivery log shows it, whatever its event (GET /webhook-deliveries). */
export const ZWebhookEvent = named(
  'WebhookEvent',
  responseOf<WebhookBody>()(
    z
      .object({
        id: ZEventId,
        event: z.string().meta({ description: 'The event name, also sent as X-Cowrie-Event' }),
        created_at: z.string().meta({ description: 'When the event happened (ISO 8601 UTC)' }),
        data: z.unknown().meta({ description: "The event's data; each event's schema is under the document's `webhooks`" }),
        livemode: ZLivemode,
      })
      .meta({ description: 'The body of a delivery, whatever its event' }),
  ),
);

const ZCollectionSuccessfulData = named(
  'CollectionSuccessfulEventData',
  responseOf<ReturnType<typeof collectionSuccessfulPayload>>()(
    z.object({
      id: z.number().int().meta({ description: 'The id of the collection, or of the reserved account, that was paid into' }),
      reference: z.string().meta({ description: 'The reference of that collection or reserved account' }),
      amount: ZAmount,
      currency: z.string(),
      account_number: z.string(),
      provider_reference: z.string().meta({ description: "The rail's reference of the transfer" }),
      channel: z.enum(['collection_va', 'reserved_va']),
      paid_at: ZTimestamp,
    }),
  ),
);

const ZEndpointDisabledData = named(
  'WebhookEndpointDisabledEventData',
  responseOf<EndpointDisabledEventData>()(
    z.object({
      endpoint_id: z.number().int().meta({ description: 'The endpoint switched off' }),
      url: z.string(),
      reason: z.string().meta({ description: "The endpoint's `disabled_reason`" }),
      failing_since: ZTimestamp.meta({ description: 'When its run of failed deliveries began' }),
      failures: z.number().int().meta({ description: 'Failed deliveries since then' }),
      disabled_at: ZTimestamp,
    }),
  ),
);

const ZCollectionExpiredData = named(
  'CollectionExpiredEventData',
  responseOf<ReturnType<typeof collectionExpiredPayload>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      amount: ZAmount,
      currency: z.string(),
      account_number: z.string(),
      expires_at: ZTimestamp,
    }),
  ),
);

const ZReservedAccountCreatedData = named(
  'ReservedAccountCreatedEventData',
  responseOf<ReturnType<typeof reservedAccountCreatedPayload>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      account_number: z.string(),
      bank: z.string(),
      customer: ZCustomer,
      currency: z.string(),
      holder: z.enum(['business', 'customer']),
    }),
  ),
);

const ZVerificationEventData = named(
  'VerificationEventData',
  responseOf<ReturnType<typeof verificationEventData>>()(
    z.object({
      reference: z.string().meta({ format: 'uuid' }),
      channel: ZVerificationChannel,
      destination: z.string().meta({ description: 'Masked' }),
      status: z.enum(['verified', 'failed', 'expired']).meta({ description: "The verification's new status, as the event's name says" }),
      attempts: z.number().int().meta({ description: 'Checks counted so far' }),
      verified_at: ZTimestamp.nullable(),
      reason: z
        .enum(['invalid_code', 'too_many_attempts'])
        .optional()
        .meta({ description: 'verification.failed only: the last allowed check had a wrong code, or no check was left' }),
    }),
  ),
);

const ZPingData = named(
  'PingEventData',
  responseOf<ReturnType<typeof pingEventData>>()(z.object({ message: z.string(), endpoint_id: z.number().int().meta({ description: 'The endpoint tested' }) })),
);

/** What a sample event is made for: the workspace whose endpoints receive it, and its time. */
export interface SampleContext {
  workspaceId: number;
  now: Date;
}

/** How the webhook trigger test helper sends an event: the scope of the action that makes it, and a sample `data`. */
export interface EventTrigger {
  scope: Scope;
  sample: (ctx: SampleContext) => unknown;
}

/** One event Cowrie posts to the webhook endpoints subscribed to it. */
export interface WebhookEventSpec {
  /** The event name: body `event`, header X-Cowrie-Event, and what an endpoint subscribes to. */
  name: string;
  summary: string;
  description: string;
  /** The schema of the whole body, `{id, event, created_at, data, livemode}`. */
  body: z.ZodType;
  /** The schema of its `data`. */
  data: z.ZodType;
  /** Absent: the trigger test helper does not send it (ping: the dashboard's test action does). */
  trigger?: EventTrigger;
}

/** `{id, event, created_at, data, livemode}` of one event, named after it (`transfer.completed` → TransferCompletedEvent). */
function event(name: string, summary: string, description: string, data: z.ZodType, trigger?: EventTrigger): WebhookEventSpec {
  const schemaName = `${name
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
  const body = named(
    schemaName,
    responseOf<WebhookBody>()(
      z
        .object({
          id: ZEventId,
          event: z.literal(name),
          created_at: ZTimestamp.meta({ description: 'When the event happened' }),
          data,
          livemode: ZLivemode,
        })
        .meta({ description: `The body of a ${name} delivery` }),
    ),
  );
  // The dashboard's ping goes to the endpoint tested, whatever it subscribes to.
  const audience = name === PING_EVENT ? '' : `\n\nSent to every active endpoint whose \`events\` holds \`${name}\` or \`*\`.`;
  return { name, summary, description: description + audience, body, data, trigger };
}

/**
 * Every event Cowrie sends, with its body. The names are the ones the
 * domain packages record in the outbox (`recordEvent`, and the outbox rows the
 * payout settle and verification check statements insert); the data schemas are
 * checked against the functions that build that data. openapi.test.ts
 * checks each event's real deliveries against this list.
 */
export const WEBHOOK_EVENTS: readonly WebhookEventSpec[] = [
  event(
    'transfer.completed',
    'A transfer or withdrawal completed',
    'The rail confirmed the payout: its hold is settled. `data` is the ledger transaction, `status` completed.',
    ZTransaction,
    { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('completed', { workspaceId, now }) },
  ),
  event(
    'transfer.failed',
    'A transfer or withdrawal failed',
    'The rail refused the payout, or never confirmed it within PAYOUT_UNKNOWN_GRACE_MS: its hold is released. `data` is the ledger transaction, `status` failed.',
    ZTransaction,
    { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('failed', { workspaceId, now }) },
  ),
  event(
    'transfer.reversed',
    'A completed transfer or withdrawal was reversed',
    "The bank returned a payout that had completed (the rail reported it reversed): the wallet got its amount and fees back once, as a `reversal` credit (channel `payout`, `metadata.reversal_of` the payout's reference). `data` is the ledger transaction, `status` reversed, `metadata.reversed_by` the credit's reference. A payout reversed before it settled fails instead (`transfer.failed`).",
    ZTransaction,
    { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('reversed', { workspaceId, now }) },
  ),
  event(
    'collection.successful',
    'Money arrived in a one-off or reserved account',
    'A bank transfer into a pending one-off account (for its exact amount) or an active reserved account was credited to the wallet.',
    ZCollectionSuccessfulData,
    { scope: 'collections:write', sample: ({ now }) => sampleCollectionSuccessfulData(now) },
  ),
  event(
    'collection.expired',
    'A one-off account expired unpaid',
    'Sent once, when a pending collection is read (GET /v1/collections/{id}) after its `expires_at`.',
    ZCollectionExpiredData,
    { scope: 'collections:write', sample: ({ now }) => sampleCollectionExpiredData(now) },
  ),
  event(
    'reserved_account.created',
    'A reserved account was opened',
    "A persistent account was opened, for a customer (POST /v1/reserved-accounts) or as the business's own (POST /v1/deposits, channel reserved_va).",
    ZReservedAccountCreatedData,
    { scope: 'collections:write', sample: () => sampleReservedAccountCreatedData() },
  ),
  event('verification.verified', 'A code was checked and was right', 'The verification is verified.', ZVerificationEventData, {
    scope: 'verification:write',
    sample: ({ now }) => sampleVerificationEventData('verified', now),
  }),
  event(
    'verification.failed',
    'A verification failed',
    'The last allowed check had a wrong code (`reason` invalid_code), or a check found no attempt left (`reason` too_many_attempts).',
    ZVerificationEventData,
    { scope: 'verification:write', sample: ({ now }) => sampleVerificationEventData('failed', now) },
  ),
  event(
    'verification.expired',
    'A code expired unchecked',
    'The first check after the code expired found it so; the verification is expired.',
    ZVerificationEventData,
    { scope: 'verification:write', sample: ({ now }) => sampleVerificationEventData('expired', now) },
  ),
  event(
    ENDPOINT_DISABLED_EVENT,
    'A webhook endpoint was switched off',
    "Every delivery to one of the workspace's endpoints failed for WEBHOOK_DISABLE_AFTER_SECONDS (default 5 days), at least WEBHOOK_DISABLE_MIN_FAILURES times, " +
      'so Cowrie switched it off. PUT /webhook-endpoints/{id} with `active: true` enables it again; POST /webhook-endpoints/{id}/recover sends what it missed.',
    ZEndpointDisabledData,
    // No API key's action makes it (the webhook sender switches an endpoint off): any key that reads may see a sample.
    { scope: 'read', sample: ({ now }) => sampleEndpointDisabledData(now) },
  ),
  event(
    PING_EVENT,
    'A test event',
    'Sent by the dashboard test action (POST /webhook-endpoints/{id}/test) to that endpoint only, whatever it subscribes to.',
    ZPingData,
  ),
];

/** One entry of GET /webhook-event-types. */
export interface WebhookEventType {
  name: string;
  summary: string;
  description: string;
  /** JSON Schema (2020-12) of the event's `data`, self-contained. */
  data_schema: Record<string, unknown>;
}

let eventTypes: WebhookEventType[] | undefined;

/** Every event with its `data` schema, from the same schemas as the document's `webhooks` (built once, on first use). */
export function webhookEventTypes(): WebhookEventType[] {
  eventTypes ??= WEBHOOK_EVENTS.map((spec) => {
    const { $schema: dialect, ...schema } = z.toJSONSchema(spec.data, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    return { name: spec.name, summary: spec.summary, description: spec.description, data_schema: { $schema: dialect, ...schema } };
  });
  return eventTypes;
}

/** The events the webhook trigger test helper sends, in the catalog's order. */
export const TRIGGERABLE_EVENTS: readonly (WebhookEventSpec & { trigger: EventTrigger })[] = WEBHOOK_EVENTS.filter(
  (e): e is WebhookEventSpec & { trigger: EventTrigger } => e.trigger !== undefined,
);

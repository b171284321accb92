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
import { ENDPOINT_DISABLED_EVENT, PING_EVENT, webhookEvents, type EmittedEvent, type EventPayload, type WebhookEventName } from '@cowrie/events';
import { sampleTransferEventData } from '@cowrie/payouts';
import { eventData as verificationEventData, sampleVerificationEventData } from '@cowrie/verification';
import { pingEventData, sampleEndpointDisabledData, type EndpointDisabledEventData, type WebhookBody } from '@cowrie/webhooks';
// The routes give the catalog's shared schemas their names (Transaction, Customer, VerificationChannel), so the
// document refers to them by $ref whichever module loads first.
import '../api/deposits/schemas';
import '../api/payouts/schemas';
import '../api/verifications/schemas';
import { ZTimestamp, named, responseOf } from './schemas';

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

// The catalog's data schemas (`webhookEvents` of @cowrie/events) with their
// names in the document, each checked against the function that builds its
// data; named() returns its argument, so these are the catalog's own schemas.
// (Transaction is checked against RenderedTransaction in api/payouts/schemas.)
const EVENT_DATA = webhookEvents.schemas;
named('CollectionSuccessfulEventData', responseOf<ReturnType<typeof collectionSuccessfulPayload>>()(EVENT_DATA['collection.successful']));
named('WebhookEndpointDisabledEventData', responseOf<EndpointDisabledEventData>()(EVENT_DATA[ENDPOINT_DISABLED_EVENT]));
named('CollectionExpiredEventData', responseOf<ReturnType<typeof collectionExpiredPayload>>()(EVENT_DATA['collection.expired']));
named('ReservedAccountCreatedEventData', responseOf<ReturnType<typeof reservedAccountCreatedPayload>>()(EVENT_DATA['reserved_account.created']));
named('VerificationEventData', responseOf<ReturnType<typeof verificationEventData>>()(EVENT_DATA['verification.verified']));
named('PingEventData', responseOf<ReturnType<typeof pingEventData>>()(EVENT_DATA[PING_EVENT]));

/** What a sample event is made for: the workspace whose endpoints receive it, and its time. */
export interface SampleContext {
  workspaceId: number;
  now: Date;
}

/** How the webhook trigger test helper sends event N: the scope of the action that makes it, and a sample `data`. */
export interface EventTrigger<N extends WebhookEventName = WebhookEventName> {
  scope: Scope;
  sample: (ctx: SampleContext) => EventPayload<N>;
}

/** How the document describes event N of the catalog. */
interface EventDocs<N extends WebhookEventName> {
  summary: string;
  description: string;
  /** Absent: the trigger test helper does not send it (ping: the dashboard's test action does). */
  trigger?: EventTrigger<N>;
}

/** A trigger with its sample as the outbox records it: `{ name, payload }`. */
type SampledTrigger = EventTrigger & { event: (ctx: SampleContext) => EmittedEvent };

/** One event Cowrie posts to the webhook endpoints subscribed to it. */
export interface WebhookEventSpec {
  /** The event name: body `event`, header X-Cowrie-Event, and what an endpoint subscribes to. */
  name: WebhookEventName;
  summary: string;
  description: string;
  /** The schema of the whole body, `{id, event, created_at, data, livemode}`. */
  body: z.ZodType;
  /** The schema of its `data`: the catalog's. */
  data: z.ZodType;
  /** Absent: the trigger test helper does not send it (ping: the dashboard's test action does). */
  trigger?: SampledTrigger;
}

/** `{id, event, created_at, data, livemode}` of one event, named after it (`transfer.completed` → TransferCompletedEvent). */
function event<N extends WebhookEventName>(name: N, { summary, description, trigger }: EventDocs<N>): WebhookEventSpec {
  const data: z.ZodType = EVENT_DATA[name];
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
          event: z.literal<string>(name),
          created_at: ZTimestamp.meta({ description: 'When the event happened' }),
          data,
          livemode: ZLivemode,
        })
        .meta({ description: `The body of a ${name} delivery` }),
    ),
  );
  // The dashboard's ping goes to the endpoint tested, whatever it subscribes to.
  const audience = name === PING_EVENT ? '' : `\n\nSent to every active endpoint whose \`events\` holds \`${name}\` or \`*\`.`;
  // The sample with its name: data of event N, by the trigger's type.
  const sampled: SampledTrigger | undefined = trigger && { ...trigger, event: (ctx) => ({ name, payload: trigger.sample(ctx) }) as EmittedEvent };
  return { name, summary, description: description + audience, body, data, trigger: sampled };
}

/**
 * How the document describes each event of the catalog: an event of the
 * catalog without its entry here does not compile, and the trigger's sample
 * must be data of that event.
 */
const EVENT_DOCS: { [N in WebhookEventName]: EventDocs<N> } = {
  'transfer.completed': {
    summary: 'A transfer or withdrawal completed',
    description: 'The rail confirmed the payout: its hold is settled. `data` is the ledger transaction, `status` completed.',
    trigger: { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('completed', { workspaceId, now }) },
  },
  'transfer.failed': {
    summary: 'A transfer or withdrawal failed',
    description:
      'The rail refused the payout, or never confirmed it within PAYOUT_UNKNOWN_GRACE_MS: its hold is released. `data` is the ledger transaction, `status` failed.',
    trigger: { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('failed', { workspaceId, now }) },
  },
  'transfer.reversed': {
    summary: 'A completed transfer or withdrawal was reversed',
    description:
      "The bank returned a payout that had completed (the rail reported it reversed): the wallet got its amount and fees back once, as a `reversal` credit (channel `payout`, `metadata.reversal_of` the payout's reference). `data` is the ledger transaction, `status` reversed, `metadata.reversed_by` the credit's reference. A payout reversed before it settled fails instead (`transfer.failed`).",
    trigger: { scope: 'payouts:write', sample: ({ workspaceId, now }) => sampleTransferEventData('reversed', { workspaceId, now }) },
  },
  'collection.successful': {
    summary: 'Money arrived in a one-off or reserved account',
    description: 'A bank transfer into a pending one-off account (for its exact amount) or an active reserved account was credited to the wallet.',
    trigger: { scope: 'collections:write', sample: ({ now }) => sampleCollectionSuccessfulData(now) },
  },
  'collection.expired': {
    summary: 'A one-off account expired unpaid',
    description: 'Sent once, when a pending collection is read (GET /v1/collections/{id}) after its `expires_at`.',
    trigger: { scope: 'collections:write', sample: ({ now }) => sampleCollectionExpiredData(now) },
  },
  'reserved_account.created': {
    summary: 'A reserved account was opened',
    description:
      "A persistent account was opened, for a customer (POST /v1/reserved-accounts) or as the business's own (POST /v1/deposits, channel reserved_va).",
    trigger: { scope: 'collections:write', sample: () => sampleReservedAccountCreatedData() },
  },
  'verification.verified': {
    summary: 'A code was checked and was right',
    description: 'The verification is verified.',
    trigger: { scope: 'verification:write', sample: ({ now }) => sampleVerificationEventData('verified', now) },
  },
  'verification.failed': {
    summary: 'A verification failed',
    description: 'The last allowed check had a wrong code (`reason` invalid_code), or a check found no attempt left (`reason` too_many_attempts).',
    trigger: { scope: 'verification:write', sample: ({ now }) => sampleVerificationEventData('failed', now) },
  },
  'verification.expired': {
    summary: 'A code expired unchecked',
    description: 'The first check after the code expired found it so; the verification is expired.',
    trigger: { scope: 'verification:write', sample: ({ now }) => sampleVerificationEventData('expired', now) },
  },
  [ENDPOINT_DISABLED_EVENT]: {
    summary: 'A webhook endpoint was switched off',
    description:
      "Every delivery to one of the workspace's endpoints failed for WEBHOOK_DISABLE_AFTER_SECONDS (default 5 days), at least WEBHOOK_DISABLE_MIN_FAILURES times, " +
      'so Cowrie switched it off. PUT /webhook-endpoints/{id} with `active: true` enables it again; POST /webhook-endpoints/{id}/recover sends what it missed.',
    // No API key's action makes it (the webhook sender switches an endpoint off): any key that reads may see a sample.
    trigger: { scope: 'read', sample: ({ now }) => sampleEndpointDisabledData(now) },
  },
  [PING_EVENT]: {
    summary: 'A test event',
    description: 'Sent by the dashboard test action (POST /webhook-endpoints/{id}/test) to that endpoint only, whatever it subscribes to.',
  },
};

/**
 * Every event Cowrie sends, with its body: the catalog's (`webhookEvents` of
 * @cowrie/events), in its order, with the schema of its data. The domain
 * packages record only those names with that data (`recordEvent`, and the
 * outbox rows the payout settle and verification check statements insert,
 * typed by `EmittedEvent`). openapi.test.ts checks each event's real
 * deliveries against this list.
 */
export const WEBHOOK_EVENTS: readonly WebhookEventSpec[] = webhookEvents.names.map((name) => event(name, EVENT_DOCS[name]));

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

import { z } from 'zod';
import {
  ZCreateWebhookEndpoint,
  ZRecoverWebhookDeliveriesRequest,
  ZRollWebhookSecretRequest,
  ZUpdateWebhookEndpoint,
  type RecoveredDeliveries,
  type ShownWebhookSecret,
  type WebhookDeliveryDetail,
  type WebhookDeliveryLogRow,
  type WebhookEndpointView,
} from '@cowrie/webhooks';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';
import { ZWebhookEvent } from '../../openapi/webhooks';

// Webhook endpoints and the delivery log: the requests and answers of their routes.

const endpointFields = {
  id: z.number().int(),
  url: z.string().meta({ description: 'Where deliveries are posted, as stored: normalised, without a #fragment, at most 512 characters' }),
  events: z.array(z.string()).meta({ description: 'Subscribed event names; ["*"] means all' }),
  active: z.boolean(),
  has_secret: z.boolean(),
  created_at: ZTimestamp,
  disabled_reason: z.string().nullable().meta({
    description: 'Why Cowrie switched the endpoint off: every delivery failed for WEBHOOK_DISABLE_AFTER_SECONDS. Null otherwise; PUT active: true clears it',
  }),
  disabled_at: ZTimestamp.nullable(),
};
export const ZWebhookEndpoint = named('WebhookEndpoint', responseOf<WebhookEndpointView>()(z.object(endpointFields)));
/** The Standard Webhooks spelling of a secret: `whsec_` + base64 of the 64 characters' UTF-8 bytes (88 characters). */
const standardWebhooksSecretField = (when: string) =>
  z.string().meta({
    pattern: '^whsec_[A-Za-z0-9+/]{86}==$',
    description:
      'The same HMAC key in Standard Webhooks form (`whsec_` + base64 of the UTF-8 bytes of `secret`), for the webhook-signature header ' +
      `and that standard's libraries (new Webhook(secret) of the standardwebhooks npm package); ${when}`,
  });
export const ZCreatedWebhookEndpoint = named(
  'CreatedWebhookEndpoint',
  responseOf<WebhookEndpointView & ShownWebhookSecret>()(
    z.object({
      ...endpointFields,
      secret: z.string().meta({
        pattern: '^[0-9a-f]{64}$',
        description: 'HMAC key of the signatures, for X-Cowrie-Signature (the string itself, as UTF-8, is the key); returned once, at creation only',
      }),
      standard_webhooks_secret: standardWebhooksSecretField('returned once, at creation only'),
    }),
  ),
);
export const ZRolledWebhookSecret = named(
  'RolledWebhookSecret',
  responseOf<WebhookEndpointView & ShownWebhookSecret & { previous_secret_expires_at: string | null }>()(
    z.object({
      ...endpointFields,
      secret: z
        .string()
        .meta({ pattern: '^[0-9a-f]{64}$', description: 'The new HMAC key of the signatures, for X-Cowrie-Signature; returned once, here only' }),
      standard_webhooks_secret: standardWebhooksSecretField('the new key, returned once, here only'),
      previous_secret_expires_at: ZTimestamp.nullable().meta({
        description:
          'Until then every delivery is signed with both secrets (X-Cowrie-Signature `t=…,v1=<new>,v1=<old>`, webhook-signature `v1,<new> v1,<old>`); null when the old secret stopped at once',
      }),
    }),
  ),
);
export const ZWebhookEventType = named(
  'WebhookEventType',
  z.object({
    name: z.string().meta({ description: "What an endpoint subscribes to, and the body's `event`" }),
    summary: z.string(),
    description: z.string(),
    data_schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema (2020-12) of the event's `data`" }),
  }),
);
export const ZDeletedWebhookEndpoint = named('DeletedWebhookEndpoint', z.object({ id: z.number().int(), deleted: z.literal(true) }));
export const ZPingResult = named(
  'WebhookTestResult',
  z.object({
    delivery_id: z.number().int().meta({ description: 'Delivery log row id, or 0 if the row could not be stored' }),
    endpoint_id: z.number().int(),
    ok: z.boolean(),
    status_code: z.number().int().nullable(),
    attempts: z.number().int(),
    error: z.string().nullable(),
  }),
);
const deliveryLogFields = {
  id: z.number().int(),
  deliveryId: z.string().meta({ format: 'uuid', description: 'Body `id` and X-Cowrie-Delivery: the same on every dispatch of the delivery' }),
  dispatch: z.number().int().meta({ description: '0 for the first dispatch of the delivery; each resend or recover is a new row with the next number' }),
  endpointId: z.number().int(),
  event: z.string(),
  payload: ZWebhookEvent.meta({ description: 'The full body that was sent' }),
  statusCode: z.number().int().nullable(),
  attempts: z.number().int(),
  ok: z.union([z.literal(0), z.literal(1)]),
  error: z.string().nullable(),
  createdAt: ZTimestamp,
  livemode: z.boolean().meta({ description: 'false for a delivery of a test-mode event (the session chose test with Cowrie-Mode)' }),
};
export const ZDeliveryLogRow = named('WebhookDelivery', responseOf<WebhookDeliveryLogRow>()(z.object(deliveryLogFields)));
export const ZDeliveryDetail = named(
  'WebhookDeliveryDetail',
  responseOf<WebhookDeliveryDetail>()(
    z.object({
      ...deliveryLogFields,
      completedAt: ZTimestamp.nullable().meta({ description: 'When the outcome was recorded; null while the dispatch is pending' }),
      requestHeaders: z
        .record(z.string(), z.string())
        .nullable()
        .meta({ description: 'The headers of the last attempt as sent (the signature included; never a secret); null when nothing was sent' }),
      responseExcerpt: z.string().nullable().meta({ description: "The start of the receiver's last answer (at most 2048 bytes); null without an answer" }),
    }),
  ),
);
export const ZRecovered = named(
  'RecoveredWebhookDeliveries',
  responseOf<Omit<RecoveredDeliveries, 'dispatches'>>()(
    z.object({
      endpoint_id: z.number().int(),
      since: ZTimestamp,
      queued: z.number().int().meta({ description: 'Failed deliveries queued to be sent again, each as a new dispatch' }),
      has_more: z.boolean().meta({ description: 'More failed deliveries remain than one recover takes (10,000): call it again once these are sent' }),
    }),
  ),
);

export const ZCreateWebhookEndpointRequest = named('CreateWebhookEndpointRequest', ZCreateWebhookEndpoint);
export const ZUpdateWebhookEndpointRequest = named('UpdateWebhookEndpointRequest', ZUpdateWebhookEndpoint);
export const ZRollWebhookSecretBody = named('RollWebhookSecretRequest', ZRollWebhookSecretRequest);
export const ZRecoverWebhookDeliveriesBody = named('RecoverWebhookDeliveriesRequest', ZRecoverWebhookDeliveriesRequest);

// The id is read by parseEndpointId: anything that is not one of the workspace's endpoints is 404.
export const ZEndpointParams = z.object({ id: z.string().meta({ description: 'Webhook endpoint id' }) });
export const ZDeliveryParams = z.object({ id: z.string().meta({ description: 'Delivery log row id' }) });

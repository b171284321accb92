import { z } from 'zod';
import { ZListWebhookDeliveriesQuery } from '@cowrie/webhooks';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZPageMeta } from '../../openapi/schemas';
import {
  ZCreateWebhookEndpointRequest,
  ZCreatedWebhookEndpoint,
  ZDeletedWebhookEndpoint,
  ZDeliveryDetail,
  ZDeliveryLogRow,
  ZDeliveryParams,
  ZEndpointParams,
  ZPingResult,
  ZRecoverWebhookDeliveriesBody,
  ZRecovered,
  ZRollWebhookSecretBody,
  ZRolledWebhookSecret,
  ZUpdateWebhookEndpointRequest,
  ZWebhookEndpoint,
  ZWebhookEventType,
} from './schemas';

const auth = { kind: 'session' } as const;
const tag = 'Webhooks (dashboard)';
const notFound = { 404: { description: 'not_found: no such endpoint in this workspace' } };
const deliveryNotFound = { 404: { description: 'not_found: no such delivery log row in this workspace' } };
/** An update that sends the endpoint's events somewhere else needs a step-up; one of its events or active does not. */
const urlChange = {
  when: (body: unknown) => typeof body === 'object' && body !== null && (body as { url?: unknown }).url !== undefined,
  description: 'when the body has a url',
};

/**
 * Webhook endpoint management and the delivery log: the dashboard's routes
 * (session only; API keys get 401), keyed by their operationId, in the order
 * they are mounted.
 */
export const webhookSpecs = {
  createWebhookEndpoint: {
    method: 'post',
    path: '/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'The secret is returned once, in both forms: `secret` (64 hex, for X-Cowrie-Signature) and `standard_webhooks_secret` (`whsec_…`, the same key, for webhook-signature). Loopback, private and metadata addresses are refused. ' +
      'A guarded change (step-up), like a new `url`: a new endpoint receives the payout events.',
    tag,
    auth: { kind: 'session', stepUp: true },
    responseHoldsSecret: true,
    request: { body: ZCreateWebhookEndpointRequest },
    responses: { 201: { description: 'The endpoint, with its secret', data: ZCreatedWebhookEndpoint } },
  },
  listWebhookEndpoints: {
    method: 'get',
    path: '/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    tag,
    auth,
    responses: { 200: { description: 'Endpoints (secrets never returned)', data: z.array(ZWebhookEndpoint) } },
  },
  updateWebhookEndpoint: {
    method: 'put',
    path: '/webhook-endpoints/:id',
    operationId: 'updateWebhookEndpoint',
    summary: 'Update url, events or active',
    description: 'A new `url` is a guarded change (step-up); events and active are not.',
    tag,
    auth: { kind: 'session', stepUp: urlChange },
    request: { params: ZEndpointParams, body: ZUpdateWebhookEndpointRequest },
    responses: { 200: { description: 'The endpoint', data: ZWebhookEndpoint }, ...notFound },
  },
  deleteWebhookEndpoint: {
    method: 'delete',
    path: '/webhook-endpoints/:id',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    tag,
    auth,
    request: { params: ZEndpointParams },
    responses: { 200: { description: 'Deleted', data: ZDeletedWebhookEndpoint }, ...notFound },
  },
  rollWebhookEndpointSecret: {
    method: 'post',
    path: '/webhook-endpoints/:id/roll-secret',
    operationId: 'rollWebhookEndpointSecret',
    summary: "Roll an endpoint's signing secret",
    description:
      'A new secret, returned once, in both forms (`secret` and `standard_webhooks_secret`). For `grace_seconds` (default a day) every delivery is signed with the new and the old secret ' +
      '(`t=<ts>,v1=<new>,v1=<old>` in X-Cowrie-Signature, `v1,<new> v1,<old>` in webhook-signature): a receiver accepts a delivery when any v1 value matches the secret it holds. ' +
      'Send Idempotency-Key: a retry then replays the same secret instead of rolling again. ' +
      "Two rolls at the same moment apply one after the other: the later one's old secret is the earlier one's new secret.",
    tag,
    auth: { kind: 'session', stepUp: true },
    idempotent: true,
    responseHoldsSecret: true,
    request: { params: ZEndpointParams, body: ZRollWebhookSecretBody },
    responses: {
      201: { description: 'The endpoint with its new secret', data: ZRolledWebhookSecret },
      ...notFound,
      409: {
        description:
          'idempotency_conflict: the Idempotency-Key was sent with another body or is still in progress, or (details.reason concurrent_roll) other rolls of this endpoint kept landing first; rolls at the same moment otherwise apply one after the other',
      },
    },
  },
  listWebhookEventTypes: {
    method: 'get',
    path: '/webhook-event-types',
    operationId: 'listWebhookEventTypes',
    summary: 'List the events an endpoint can subscribe to',
    description: "Each event's name and a JSON Schema of its `data`: the same schemas as this document's `webhooks` section.",
    tag,
    auth,
    responses: { 200: { description: 'Every event', data: z.array(ZWebhookEventType) } },
  },
  // Sends a ping through the webhook-sender and answers with its outcome.
  testWebhookEndpoint: {
    method: 'post',
    path: '/webhook-endpoints/:id/test',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a ping event and wait for its outcome',
    description:
      "Each ping is a real POST to the endpoint, so an endpoint takes at most WEBHOOK_TEST_RATE_LIMIT pings (default 30) per 60 s, counted apart from the session's request budget. A ping past that limit reaches nobody: it is 429 `rate_limited` with `details.reason` `webhook_test`, and without the X-RateLimit-* headers, which describe the session's request budget only.",
    tag,
    auth,
    request: { params: ZEndpointParams },
    responses: {
      200: { description: 'The outcome of the ping delivery', data: ZPingResult },
      ...notFound,
      429: {
        description:
          "rate_limited: the session's request budget (details `{limit, retry_after_seconds}`, with the X-RateLimit-* headers), or the endpoint's test pings (details.reason `webhook_test`, with `limit` and `retry_after_seconds`; no X-RateLimit-* headers)",
      },
    },
  },
  listWebhookDeliveries: {
    method: 'get',
    path: '/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log, newest first',
    description: 'Filter by endpoint, event, outcome and time; cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
    tag,
    auth,
    request: { query: ZListWebhookDeliveriesQuery },
    responses: { 200: { description: "Finished deliveries of this workspace's endpoints", data: z.array(ZDeliveryLogRow), meta: ZPageMeta } },
  },
  getWebhookDelivery: {
    method: 'get',
    path: '/webhook-deliveries/:id',
    operationId: 'getWebhookDelivery',
    summary: 'One delivery: what was sent and what came back',
    tag,
    auth,
    request: { params: ZDeliveryParams },
    responses: { 200: { description: 'The delivery log row, with its request headers and response excerpt', data: ZDeliveryDetail }, ...deliveryNotFound },
  },
  resendWebhookDelivery: {
    method: 'post',
    path: '/webhook-deliveries/:id/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again',
    description:
      'A new dispatch of the same delivery: a new log row (its own `id`, the next `dispatch`) with the same body, so the same `id` and X-Cowrie-Delivery, ' +
      'signed afresh. Refused while the delivery is still being sent or when its endpoint is switched off. ' +
      'Send Idempotency-Key: a retry then answers with the same dispatch instead of sending again.',
    tag,
    auth,
    idempotent: true,
    request: { params: ZDeliveryParams },
    responses: { 201: { description: 'The new dispatch, pending', data: ZDeliveryDetail }, ...deliveryNotFound },
  },
  recoverWebhookDeliveries: {
    method: 'post',
    path: '/webhook-endpoints/:id/recover',
    operationId: 'recoverWebhookDeliveries',
    summary: 'Send again every failed delivery since a time',
    description:
      'Every event delivery to the endpoint since `since` whose last dispatch failed gets a new dispatch (same body and delivery id), oldest first, ' +
      'including the events that fired while Cowrie had switched the endpoint off (kept failed and unsent, attempts 0; enabling it sends none of them), ' +
      'at most WEBHOOK_RECOVER_RATE_PER_SECOND per endpoint and behind live deliveries. Test pings are not recovered. ' +
      'Send Idempotency-Key: a retry then answers the same instead of queueing again.',
    tag,
    auth,
    idempotent: true,
    request: { params: ZEndpointParams, body: ZRecoverWebhookDeliveriesBody },
    responses: { 202: { description: 'How many deliveries were queued', data: ZRecovered }, ...notFound },
  },
} satisfies Record<string, AnyRouteSpec>;

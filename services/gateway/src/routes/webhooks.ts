import { z } from 'zod';
import { enqueueAndWait } from '@cowrie/core';
import {
  ZCreateWebhookEndpoint,
  ZListWebhookDeliveriesQuery,
  ZRecoverWebhookDeliveriesRequest,
  enqueueDeliveries,
  getWebhookDelivery,
  parseDeliveryLogId,
  recoverWebhookDeliveries,
  resendWebhookDelivery,
  type DispatchKey,
  type RecoveredDeliveries,
  type WebhookDeliveryDetail,
  ZUpdateWebhookEndpoint,
  WEBHOOK_RETRY_DELAYS_MS,
  createAddressPolicy,
  createPingDelivery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  deliveryJobId,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  parseEndpointId,
  readDeliveryOutcome,
  rollWebhookEndpointSecret,
  ZRollWebhookSecretRequest,
  updateWebhookEndpoint,
  type WebhookDeliveryLogRow,
  type ShownWebhookSecret,
  type WebhookEndpointView,
  webhooksQueue,
} from '@cowrie/webhooks';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sendPage, sessionOf } from '../http/respond';
import { recordAudit, recordAuditAfter } from '../http/audit';
import { refuseOverBudget } from '../http/api-auth';
import { hitWebhookTestBudget, reserveWebhookRecoverPace } from '@cowrie/api-limits';
import { ZPageMeta, ZTimestamp, named, responseOf } from '../openapi/schemas';
import { ZWebhookEvent, webhookEventTypes } from '../openapi/webhooks';

const endpointFields = {
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.string()).meta({ description: 'Subscribed event names; ["*"] means all' }),
  active: z.boolean(),
  has_secret: z.boolean(),
  created_at: ZTimestamp,
  disabled_reason: z.string().nullable().meta({
    description: 'Why Cowrie switched the endpoint off: every delivery failed for WEBHOOK_DISABLE_AFTER_SECONDS. Null otherwise; PUT active: true clears it',
  }),
  disabled_at: ZTimestamp.nullable(),
};
const ZWebhookEndpoint = named('WebhookEndpoint', responseOf<WebhookEndpointView>()(z.object(endpointFields)));
/** The Standard Webhooks spelling of a secret: `whsec_` + base64 of the 64 characters' UTF-8 bytes (88 characters). */
const standardWebhooksSecretField = (when: string) =>
  z.string().meta({
    pattern: '^whsec_[A-Za-z0-9+/]{86}==$',
    description:
      'The same HMAC key in Standard Webhooks form (`whsec_` + base64 of the UTF-8 bytes of `secret`), for the webhook-signature header ' +
      `and that standard's libraries (new Webhook(secret) of the standardwebhooks npm package); ${when}`,
  });
const ZCreatedWebhookEndpoint = named(
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
const ZRolledWebhookSecret = named(
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
const ZWebhookEventType = named(
  'WebhookEventType',
  z.object({
    name: z.string().meta({ description: "What an endpoint subscribes to, and the body's `event`" }),
    summary: z.string(),
    description: z.string(),
    data_schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema (2020-12) of the event's `data`" }),
  }),
);
const ZDeletedWebhookEndpoint = named('DeletedWebhookEndpoint', z.object({ id: z.number().int(), deleted: z.literal(true) }));
const ZPingResult = named(
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
const ZDeliveryLogRow = named('WebhookDelivery', responseOf<WebhookDeliveryLogRow>()(z.object(deliveryLogFields)));
const ZDeliveryDetail = named(
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
const ZRecovered = named(
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
const ZDeliveryParams = z.object({ id: z.string().meta({ description: 'Delivery log row id' }) });
const deliveryNotFound = { 404: { description: 'not_found: no such delivery log row in this workspace' } };
// The id is read by parseEndpointId: anything that is not one of the workspace's endpoints is 404.
const ZEndpointParams = z.object({ id: z.string().meta({ description: 'Webhook endpoint id' }) });
const notFound = { 404: { description: 'not_found: no such endpoint in this workspace' } };
/** An update that sends the endpoint's events somewhere else needs a step-up; one of its events or active does not. */
const urlChange = {
  when: (body: unknown) => typeof body === 'object' && body !== null && (body as { url?: unknown }).url !== undefined,
  description: 'when the body has a url',
};
// Recovered dispatches wait behind every live one (jobs without a priority come first).
const RECOVER_PRIORITY = 10;

/**
 * Webhook endpoint management and the delivery log. Dashboard session only; API keys get 401.
 */
export function registerWebhookRoutes(app: RouteMount, deps: GatewayDeps) {
  const policy = createAddressPolicy(deps.config.WEBHOOK_ALLOWED_CIDRS);
  // Three attempts of WEBHOOK_TIMEOUT_MS plus the 0/500/1500 ms waits, and a margin.
  const pingWaitMs = 3 * deps.config.WEBHOOK_TIMEOUT_MS + WEBHOOK_RETRY_DELAYS_MS.reduce<number>((a, b) => a + b, 0) + 2000;
  const auth = { kind: 'session' } as const;
  const tag = 'Webhooks (dashboard)';

  app.route(
    {
      method: 'post',
      path: '/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint',
      description:
        'The secret is returned once, in both forms: `secret` (64 hex, for X-Cowrie-Signature) and `standard_webhooks_secret` (`whsec_…`, the same key, for webhook-signature). Loopback, private and metadata addresses are refused.',
      tag,
      auth,
      responseHoldsSecret: true,
      request: { body: named('CreateWebhookEndpointRequest', ZCreateWebhookEndpoint) },
      responses: { 201: { description: 'The endpoint, with its secret', data: ZCreatedWebhookEndpoint } },
    },
    async ({ body }, req, res) => {
      const created = await createWebhookEndpoint(deps.db, {
        workspaceId: sessionOf(req).workspaceId,
        input: body,
        encryptionKey: deps.config.ENCRYPTION_KEY,
        policy,
        maxEndpoints: deps.config.WEBHOOK_ENDPOINTS_MAX,
      });
      await recordAuditAfter(deps.db, req, { action: 'webhook_endpoint.created', objectId: created.id, details: { url: created.url, events: created.events } });
      sendData(req, res, 201, created);
    },
  );

  app.route(
    {
      method: 'get',
      path: '/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      tag,
      auth,
      responses: { 200: { description: 'Endpoints (secrets never returned)', data: z.array(ZWebhookEndpoint) } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await listWebhookEndpoints(deps.db, sessionOf(req).workspaceId));
    },
  );

  app.route(
    {
      method: 'put',
      path: '/webhook-endpoints/:id',
      operationId: 'updateWebhookEndpoint',
      summary: 'Update url, events or active',
      description: 'A new `url` is a guarded change (step-up); events and active are not.',
      tag,
      auth: { kind: 'session', stepUp: urlChange },
      request: { params: ZEndpointParams, body: named('UpdateWebhookEndpointRequest', ZUpdateWebhookEndpoint) },
      responses: { 200: { description: 'The endpoint', data: ZWebhookEndpoint }, ...notFound },
    },
    async ({ params, body }, req, res) => {
      const id = parseEndpointId(params.id);
      // Not in a transaction: a new url is looked up in DNS (the address policy) before the write.
      const updated = await updateWebhookEndpoint(deps.db, { workspaceId: sessionOf(req).workspaceId, id, input: body, policy });
      await recordAuditAfter(deps.db, req, {
        action: 'webhook_endpoint.updated',
        objectId: id,
        details: {
          ...(body.url !== undefined ? { url: updated.url } : {}),
          ...(body.events !== undefined ? { events: updated.events } : {}),
          ...(body.active !== undefined ? { active: updated.active } : {}),
        },
      });
      sendData(req, res, 200, updated);
    },
  );

  app.route(
    {
      method: 'delete',
      path: '/webhook-endpoints/:id',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      tag,
      auth,
      request: { params: ZEndpointParams },
      responses: { 200: { description: 'Deleted', data: ZDeletedWebhookEndpoint }, ...notFound },
    },
    async ({ params }, req, res) => {
      const id = parseEndpointId(params.id);
      const deleted = await deps.db.$transaction(async (tx) => {
        const done = await deleteWebhookEndpoint(tx, { workspaceId: sessionOf(req).workspaceId, id });
        await recordAudit(tx, req, { action: 'webhook_endpoint.deleted', objectId: id, details: {} });
        return done;
      });
      sendData(req, res, 200, deleted);
    },
  );

  app.route(
    {
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
      request: { params: ZEndpointParams, body: named('RollWebhookSecretRequest', ZRollWebhookSecretRequest) },
      responses: {
        201: { description: 'The endpoint with its new secret', data: ZRolledWebhookSecret },
        ...notFound,
        409: {
          description:
            'idempotency_conflict: the Idempotency-Key was sent with another body or is still in progress, or (details.reason concurrent_roll) other rolls of this endpoint kept landing first; rolls at the same moment otherwise apply one after the other',
        },
      },
    },
    async ({ params, body }, req, res) => {
      const rolled = await deps.db.$transaction(async (tx) => {
        const endpoint = await rollWebhookEndpointSecret(tx, {
          workspaceId: sessionOf(req).workspaceId,
          id: parseEndpointId(params.id),
          graceSeconds: body.grace_seconds,
          encryptionKey: deps.config.ENCRYPTION_KEY,
        });
        await recordAudit(tx, req, { action: 'webhook_endpoint.secret_rolled', objectId: endpoint.id, details: { grace_seconds: body.grace_seconds } });
        return endpoint;
      });
      sendData(req, res, 201, rolled);
    },
  );

  app.route(
    {
      method: 'get',
      path: '/webhook-event-types',
      operationId: 'listWebhookEventTypes',
      summary: 'List the events an endpoint can subscribe to',
      description: "Each event's name and a JSON Schema of its `data`: the same schemas as this document's `webhooks` section.",
      tag,
      auth,
      responses: { 200: { description: 'Every event', data: z.array(ZWebhookEventType) } },
    },
    (_input, req, res) => {
      sendData(req, res, 200, webhookEventTypes());
    },
  );

  // Sends a ping through the webhook-sender and answers with its outcome.
  app.route(
    {
      method: 'post',
      path: '/webhook-endpoints/:id/test',
      operationId: 'testWebhookEndpoint',
      summary: 'Send a ping event and wait for its outcome',
      tag,
      auth,
      request: { params: ZEndpointParams },
      responses: { 200: { description: 'The outcome of the ping delivery', data: ZPingResult }, ...notFound },
    },
    async ({ params }, req, res) => {
      const endpointId = parseEndpointId(params.id);
      // Each ping is a real POST to someone's server: a budget per endpoint (WEBHOOK_TEST_RATE_LIMIT per 60 s).
      const endpoint = await getWebhookEndpoint(deps.db, sessionOf(req).workspaceId, endpointId);
      refuseOverBudget(
        await hitWebhookTestBudget(deps.redis, { keyPrefix: deps.config.REDIS_KEY_PREFIX, endpoint, limit: deps.config.WEBHOOK_TEST_RATE_LIMIT }),
      );
      const ping = await createPingDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, mode: sessionOf(req).mode, endpointId });
      const run = enqueueAndWait(
        deps.queues.webhooks,
        webhooksQueue,
        'webhook.deliver',
        { deliveryId: ping.deliveryId, dispatch: ping.dispatch },
        { jobId: deliveryJobId(ping), waitMs: pingWaitMs },
      );
      const outcome = await waitForOutcome(deps, ping, run, pingWaitMs);
      const queued = await run;
      // Redis refused the job: the error handler answers for the lost dependency.
      if (queued.kind === 'not_queued') throw queued.error;
      sendData(req, res, 200, {
        delivery_id: outcome ? Number(outcome.id) : 0,
        endpoint_id: endpointId,
        ok: outcome?.completed ? outcome.ok : false,
        status_code: outcome?.completed ? outcome.statusCode : null,
        attempts: outcome?.completed ? outcome.attempts : 0,
        error:
          outcome === null
            ? 'The endpoint was deleted during the test'
            : outcome.completed
              ? outcome.error
              : 'The test delivery has not finished yet; see the delivery log',
      });
    },
  );

  app.route(
    {
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
    async ({ query }, req, res) => {
      sendPage(req, res, await listWebhookDeliveries(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );

  app.route(
    {
      method: 'get',
      path: '/webhook-deliveries/:id',
      operationId: 'getWebhookDelivery',
      summary: 'One delivery: what was sent and what came back',
      tag,
      auth,
      request: { params: ZDeliveryParams },
      responses: { 200: { description: 'The delivery log row, with its request headers and response excerpt', data: ZDeliveryDetail }, ...deliveryNotFound },
    },
    async ({ params }, req, res) => {
      sendData(req, res, 200, await getWebhookDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, id: parseDeliveryLogId(params.id) }));
    },
  );

  app.route(
    {
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
    async ({ params }, req, res) => {
      const resent = await resendWebhookDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, id: parseDeliveryLogId(params.id) });
      await recordAuditAfter(deps.db, req, {
        action: 'webhook_delivery.resent',
        objectId: resent.id,
        details: { delivery_id: resent.deliveryId, dispatch: resent.dispatch, event: resent.event, endpoint_id: resent.endpointId },
      });
      await enqueueDeliveries(deps.queues.webhooks.queue, [resent]);
      sendData(req, res, 201, resent);
    },
  );

  app.route(
    {
      method: 'post',
      path: '/webhook-endpoints/:id/recover',
      operationId: 'recoverWebhookDeliveries',
      summary: 'Send again every failed delivery since a time',
      description:
        'Every event delivery to the endpoint since `since` whose last dispatch failed gets a new dispatch (same body and delivery id), oldest first, ' +
        'at most WEBHOOK_RECOVER_RATE_PER_SECOND per endpoint and behind live deliveries. Test pings are not recovered. ' +
        'Send Idempotency-Key: a retry then answers the same instead of queueing again.',
      tag,
      auth,
      idempotent: true,
      request: { params: ZEndpointParams, body: named('RecoverWebhookDeliveriesRequest', ZRecoverWebhookDeliveriesRequest) },
      responses: { 202: { description: 'How many deliveries were queued', data: ZRecovered }, ...notFound },
    },
    async ({ params, body }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const endpoint = await getWebhookEndpoint(deps.db, workspaceId, parseEndpointId(params.id));
      const { dispatches, ...recovered } = await recoverWebhookDeliveries(deps.db, { workspaceId, endpointId: endpoint.id, since: body.since });
      await recordAuditAfter(deps.db, req, { action: 'webhook_endpoint.recovered', objectId: endpoint.id, details: recovered });
      if (dispatches.length) {
        const pace = await reserveWebhookRecoverPace(deps.redis, {
          keyPrefix: deps.config.REDIS_KEY_PREFIX,
          endpoint,
          count: dispatches.length,
          ratePerSecond: deps.config.WEBHOOK_RECOVER_RATE_PER_SECOND,
        });
        await enqueueDeliveries(deps.queues.webhooks.queue, dispatches, { pace, priority: RECOVER_PRIORITY });
      }
      sendData(req, res, 202, recovered);
    },
  );
}

/**
 * Waits for the worker's outcome, bounded. The queue's completion event can be
 * missed, so Postgres (the source of truth) is also polled, and it is what the
 * answer is read from.
 */
async function waitForOutcome(deps: GatewayDeps, dispatch: DispatchKey, finished: Promise<unknown>, waitMs: number) {
  const deadline = Date.now() + waitMs;
  let done = false;
  const signal = finished.then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    const outcome = await readDeliveryOutcome(deps.db, dispatch);
    if (!outcome || outcome.completed || done || Date.now() >= deadline) return outcome;
    await Promise.race([signal, new Promise((r) => setTimeout(r, 250))]);
  }
}

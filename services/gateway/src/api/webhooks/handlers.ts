import { AppError } from '@cowrie/core';
import {
  createAddressPolicy,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueDeliveries,
  getWebhookDelivery,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  parseDeliveryLogId,
  parseEndpointId,
  recoverWebhookDeliveries,
  resendWebhookDelivery,
  rollWebhookEndpointSecret,
  sendTestPing,
  updateWebhookEndpoint,
  type TestPingOutcome,
} from '@cowrie/webhooks';
import { hitWebhookTestBudget, reserveWebhookRecoverPace } from '@cowrie/api-limits';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData, sendPage, sessionOf } from '../../http/respond';
import { recordAudit, recordAuditAfter } from '../../http/audit';
import { dropRateLimitHeaders } from '../../http/api-auth';
import { webhookEventTypes } from '../../openapi/webhooks';
import type { webhookSpecs } from './specs';

// Recovered dispatches wait behind every live one (jobs without a priority come first).
const RECOVER_PRIORITY = 10;

/** The answer of the test action for each outcome of its ping (a lost Redis is the error handler's 503). */
function pingResult(endpointId: number, outcome: Exclude<TestPingOutcome, { kind: 'not_queued' }>) {
  switch (outcome.kind) {
    case 'delivered':
      return {
        delivery_id: outcome.logId,
        endpoint_id: endpointId,
        ok: outcome.ok,
        status_code: outcome.statusCode,
        attempts: outcome.attempts,
        error: outcome.error,
      };
    case 'pending':
      return {
        delivery_id: outcome.logId,
        endpoint_id: endpointId,
        ok: false,
        status_code: null,
        attempts: 0,
        error: 'The test delivery has not finished yet; see the delivery log',
      };
    case 'endpoint_deleted':
      return { delivery_id: 0, endpoint_id: endpointId, ok: false, status_code: null, attempts: 0, error: 'The endpoint was deleted during the test' };
  }
}

/** One handler per webhook route (webhookSpecs): each calls @cowrie/webhooks and answers. */
export function createWebhookHandlers(deps: GatewayDeps): HandlersOf<typeof webhookSpecs> {
  const policy = createAddressPolicy(deps.config.WEBHOOK_ALLOWED_CIDRS);
  return {
    async createWebhookEndpoint({ body }, req, res) {
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

    async listWebhookEndpoints(_input, req, res) {
      sendData(req, res, 200, await listWebhookEndpoints(deps.db, sessionOf(req).workspaceId));
    },

    async updateWebhookEndpoint({ params, body }, req, res) {
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

    async deleteWebhookEndpoint({ params }, req, res) {
      const id = parseEndpointId(params.id);
      const deleted = await deps.db.$transaction(async (tx) => {
        const done = await deleteWebhookEndpoint(tx, { workspaceId: sessionOf(req).workspaceId, id });
        await recordAudit(tx, req, { action: 'webhook_endpoint.deleted', objectId: id, details: {} });
        return done;
      });
      sendData(req, res, 200, deleted);
    },

    async rollWebhookEndpointSecret({ params, body }, req, res) {
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

    listWebhookEventTypes(_input, req, res) {
      sendData(req, res, 200, webhookEventTypes());
    },

    async testWebhookEndpoint({ params }, req, res) {
      const endpointId = parseEndpointId(params.id);
      const { workspaceId, mode } = sessionOf(req);
      // Each ping is a real POST to someone's server: a budget per endpoint (WEBHOOK_TEST_RATE_LIMIT per 60 s).
      const endpoint = await getWebhookEndpoint(deps.db, workspaceId, endpointId);
      const pings = await hitWebhookTestBudget(deps.redis, { keyPrefix: deps.config.REDIS_KEY_PREFIX, endpoint, limit: deps.config.WEBHOOK_TEST_RATE_LIMIT });
      if (!pings.allowed) {
        // The endpoint's ping budget refused, not the session's: its own reason, and none of the session budget's headers.
        dropRateLimitHeaders(res);
        throw new AppError('rate_limited', `Too many test pings to this endpoint (at most ${pings.limit} per 60 s); retry later`, {
          details: { reason: 'webhook_test', limit: pings.limit, retry_after_seconds: pings.retryAfterSeconds },
          headers: { 'Retry-After': String(pings.retryAfterSeconds) },
        });
      }
      const outcome = await sendTestPing(
        { db: deps.db, channel: deps.queues.webhooks, timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS },
        { workspaceId, mode, endpointId },
      );
      // Redis refused the job: the error handler answers for the lost dependency.
      if (outcome.kind === 'not_queued') throw outcome.error;
      sendData(req, res, 200, pingResult(endpointId, outcome));
    },

    async listWebhookDeliveries({ query }, req, res) {
      sendPage(req, res, await listWebhookDeliveries(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },

    async getWebhookDelivery({ params }, req, res) {
      sendData(req, res, 200, await getWebhookDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, id: parseDeliveryLogId(params.id) }));
    },

    async resendWebhookDelivery({ params }, req, res) {
      const resent = await resendWebhookDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, id: parseDeliveryLogId(params.id) });
      await recordAuditAfter(deps.db, req, {
        action: 'webhook_delivery.resent',
        objectId: resent.id,
        details: { delivery_id: resent.deliveryId, dispatch: resent.dispatch, event: resent.event, endpoint_id: resent.endpointId },
      });
      await enqueueDeliveries(deps.queues.webhooks.queue, [resent]);
      sendData(req, res, 201, resent);
    },

    async recoverWebhookDeliveries({ params, body }, req, res) {
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
  };
}

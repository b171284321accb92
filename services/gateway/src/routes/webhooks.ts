import type { Router } from 'express';
import { enqueue, webhooksQueue } from '@cowrie/core';
import {
  ZCreateWebhookEndpoint,
  ZListWebhookDeliveriesQuery,
  ZUpdateWebhookEndpoint,
  WEBHOOK_RETRY_DELAYS_MS,
  createAddressPolicy,
  createPingDelivery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  deliveryJobId,
  listWebhookDeliveries,
  listWebhookEndpoints,
  parseEndpointId,
  readDeliveryOutcome,
  updateWebhookEndpoint,
} from '@cowrie/webhooks';
import type { GatewayDeps } from '../deps';
import { requireSession } from '../http/api-auth';
import { parseBody, parseQuery } from '../http/validate';
import { sendData, sessionOf } from '../http/respond';

/**
 * Webhook endpoint management and the delivery log (interface: Webhook
 * endpoint management). Dashboard session only; API keys get 401.
 */
export function registerWebhookRoutes(app: Router, deps: GatewayDeps) {
  const policy = createAddressPolicy(deps.config.WEBHOOK_ALLOWED_CIDRS);
  const session = requireSession(deps);
  // Three attempts of WEBHOOK_TIMEOUT_MS plus the 0/500/1500 ms waits, and a margin.
  const pingWaitMs = 3 * deps.config.WEBHOOK_TIMEOUT_MS + WEBHOOK_RETRY_DELAYS_MS.reduce<number>((a, b) => a + b, 0) + 2000;

  app.post('/webhook-endpoints', session, async (req, res) => {
    const input = parseBody(ZCreateWebhookEndpoint, req);
    const created = await createWebhookEndpoint(deps.db, { workspaceId: sessionOf(req).workspaceId, input, encryptionKey: deps.config.ENCRYPTION_KEY, policy });
    sendData(req, res, 201, created);
  });

  app.get('/webhook-endpoints', session, async (req, res) => {
    sendData(req, res, 200, await listWebhookEndpoints(deps.db, sessionOf(req).workspaceId));
  });

  app.put('/webhook-endpoints/:id', session, async (req, res) => {
    const id = parseEndpointId(req.params.id);
    const input = parseBody(ZUpdateWebhookEndpoint, req);
    sendData(req, res, 200, await updateWebhookEndpoint(deps.db, { workspaceId: sessionOf(req).workspaceId, id, input, policy }));
  });

  app.delete('/webhook-endpoints/:id', session, async (req, res) => {
    const id = parseEndpointId(req.params.id);
    sendData(req, res, 200, await deleteWebhookEndpoint(deps.db, { workspaceId: sessionOf(req).workspaceId, id }));
  });

  // Sends a ping through the webhook-sender and answers with its outcome.
  app.post('/webhook-endpoints/:id/test', session, async (req, res) => {
    const endpointId = parseEndpointId(req.params.id);
    const ping = await createPingDelivery(deps.db, { workspaceId: sessionOf(req).workspaceId, endpointId });
    const job = await enqueue(deps.queues.webhooks, webhooksQueue, 'webhook.deliver', { deliveryId: ping.deliveryId }, { jobId: deliveryJobId(ping.deliveryId) });
    const outcome = await waitForOutcome(deps, ping.deliveryId, () => job.waitUntilFinished(deps.queues.webhookEvents, pingWaitMs), pingWaitMs);
    sendData(req, res, 200, {
      delivery_id: outcome ? Number(outcome.id) : 0,
      endpoint_id: endpointId,
      ok: outcome?.completed ? outcome.ok : false,
      status_code: outcome?.completed ? outcome.statusCode : null,
      attempts: outcome?.completed ? outcome.attempts : 0,
      error: outcome === null ? 'The endpoint was deleted during the test' : outcome.completed ? outcome.error : 'The test delivery has not finished yet; see the delivery log',
    });
  });

  app.get('/webhook-deliveries', session, async (req, res) => {
    const query = parseQuery(ZListWebhookDeliveriesQuery, req);
    sendData(req, res, 200, await listWebhookDeliveries(deps.db, { workspaceId: sessionOf(req).workspaceId, endpointId: query.endpoint_id, limit: query.limit }));
  });
}

/**
 * Waits for the worker's outcome, bounded. The queue's completion event can be
 * missed, so Postgres (the source of truth) is also polled, and it is what the
 * answer is read from.
 */
async function waitForOutcome(deps: GatewayDeps, deliveryId: string, finished: () => Promise<unknown>, waitMs: number) {
  const deadline = Date.now() + waitMs;
  let done = false;
  const signal = finished().then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    const outcome = await readDeliveryOutcome(deps.db, deliveryId);
    if (!outcome || outcome.completed || done || Date.now() >= deadline) return outcome;
    await Promise.race([signal, new Promise((r) => setTimeout(r, 250))]);
  }
}

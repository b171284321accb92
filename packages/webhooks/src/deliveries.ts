import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Mode } from '@cowrie/core';
import type { DbOrTx, Prisma } from '@cowrie/db';
import { getWebhookEndpoint } from './endpoints';
import { PING_EVENT } from './events';

/** The body of every delivery (interface: Events, Delivery). */
export interface WebhookBody {
  /** The delivery UUID, also X-Cowrie-Delivery. */
  id: string;
  event: string;
  created_at: string;
  data: unknown;
  /** false for an event of a workspace's test mode (as Stripe's events carry it); an addition to the interface's fields. */
  livemode: boolean;
}

export function buildWebhookBody(deliveryId: string, event: string, createdAt: Date, data: unknown, mode: Mode): WebhookBody {
  return { id: deliveryId, event, created_at: createdAt.toISOString(), data, livemode: mode === 'live' };
}

/** A stored body with its keys in the documented order (jsonb does not keep key order). */
export function webhookBodyFromStored(payload: unknown): WebhookBody {
  const p = (payload ?? {}) as Partial<WebhookBody>;
  // Bodies stored before modes existed were all of live workspaces.
  return { id: String(p.id), event: String(p.event), created_at: String(p.created_at), data: p.data ?? null, livemode: p.livemode ?? true };
}

/** The exact bytes sent and signed. */
export const serialiseWebhookBody = (body: WebhookBody): Buffer => Buffer.from(JSON.stringify(body), 'utf8');

// ─── The delivery log ──────────────────────────────────────────────────────────

/** Interface: Webhook delivery log row (camelCase keys), plus its own `id` and `deliveryId`. */
export interface WebhookDeliveryLogRow {
  id: number;
  deliveryId: string;
  endpointId: number;
  event: string;
  payload: WebhookBody;
  statusCode: number | null;
  attempts: number;
  ok: 0 | 1;
  error: string | null;
  createdAt: string;
  /** The mode of the event delivered (payload.livemode). */
  livemode: boolean;
}

interface DeliveryRow {
  id: bigint;
  deliveryId: string;
  endpointId: number;
  event: string;
  payload: unknown;
  statusCode: number | null;
  attempts: number;
  ok: number;
  error: string | null;
  createdAt: Date;
}

export function deliveryLogView(row: DeliveryRow): WebhookDeliveryLogRow {
  const payload = webhookBodyFromStored(row.payload);
  return {
    id: Number(row.id),
    deliveryId: row.deliveryId,
    endpointId: row.endpointId,
    event: row.event,
    payload,
    statusCode: row.statusCode,
    attempts: row.attempts,
    ok: row.ok === 1 ? 1 : 0,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    livemode: payload.livemode,
  };
}

/** Interface: Limits (Delivery log `limit`). */
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;
export const DELIVERY_LOG_MAX_LIMIT = 200;

export const ZListWebhookDeliveriesQuery = z.object({
  endpoint_id: z.coerce.number().int().positive().max(2_147_483_647).optional().meta({ description: 'Only the deliveries to this endpoint' }),
  // Out-of-range values are clamped rather than refused.
  limit: z.coerce
    .number()
    .int()
    .optional()
    .transform((n) => Math.min(DELIVERY_LOG_MAX_LIMIT, Math.max(1, n ?? DELIVERY_LOG_DEFAULT_LIMIT)))
    .meta({ description: `Rows to return, default ${DELIVERY_LOG_DEFAULT_LIMIT}, clamped to 1 to ${DELIVERY_LOG_MAX_LIMIT}` }),
});

/** Finished deliveries of the workspace's endpoints, newest first. Pending ones have no outcome yet. */
export async function listWebhookDeliveries(db: DbOrTx, opts: { workspaceId: number; endpointId?: number; limit: number }): Promise<WebhookDeliveryLogRow[]> {
  const rows = await db.webhookDelivery.findMany({
    where: { workspaceId: opts.workspaceId, completedAt: { not: null }, ...(opts.endpointId ? { endpointId: opts.endpointId } : {}) },
    orderBy: { id: 'desc' },
    take: opts.limit,
  });
  return rows.map(deliveryLogView);
}

// ─── The dashboard's test action ──────────────────────────────────────────────

/** `data` of the ping event the dashboard's test action sends. */
export function pingEventData(endpointId: number) {
  return { message: 'This is a test event from Cowrie.', endpoint_id: endpointId };
}

/**
 * Creates a pending `ping` delivery to one of the workspace's endpoints (404 for
 * anyone else's); the caller queues `webhook.deliver` for it.
 */
export async function createPingDelivery(db: DbOrTx, opts: { workspaceId: number; mode: Mode; endpointId: number; now?: Date }) {
  const endpoint = await getWebhookEndpoint(db, opts.workspaceId, opts.endpointId);
  const deliveryId = randomUUID();
  const body = buildWebhookBody(deliveryId, PING_EVENT, opts.now ?? new Date(), pingEventData(endpoint.id), opts.mode);
  const row = await db.webhookDelivery.create({
    data: { deliveryId, workspaceId: opts.workspaceId, endpointId: endpoint.id, event: PING_EVENT, payload: body as unknown as Prisma.InputJsonValue },
    select: { id: true, deliveryId: true },
  });
  return { id: row.id, deliveryId: row.deliveryId, endpointId: endpoint.id };
}

/** The outcome of a delivery as stored; `completed` false while it is still pending. */
export async function readDeliveryOutcome(db: DbOrTx, deliveryId: string) {
  const row = await db.webhookDelivery.findUnique({ where: { deliveryId } });
  if (!row) return null;
  return {
    id: row.id,
    endpointId: row.endpointId,
    completed: row.completedAt !== null,
    ok: row.ok === 1,
    statusCode: row.statusCode,
    attempts: row.attempts,
    error: row.error,
  };
}

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, isoTimeField, parseBigPathId, queryTimeField, type Mode } from '@cowrie/core';
import type { DbOrTx, Prisma, PrismaClient } from '@cowrie/db';
import type { DispatchKey } from './delivery-bookkeeping';
import { getWebhookEndpoint } from './endpoints';
import { PING_EVENT } from './events';

/** The body of every delivery. */
export interface WebhookBody {
  /** The delivery UUID, also X-Cowrie-Delivery. */
  id: string;
  event: string;
  created_at: string;
  data: unknown;
  /** false for an event of a workspace's test mode (as Stripe's events carry it); an addition to the API's fields. */
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

/** A webhook delivery log row (camelCase keys), plus its own `id` and `deliveryId`. */
export interface WebhookDeliveryLogRow {
  id: number;
  deliveryId: string;
  /** 0 for the first dispatch of the delivery, then 1, 2… for each resend or recover (each its own row). */
  dispatch: number;
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
  dispatch: number;
  endpointId: number;
  event: string;
  payload: unknown;
  statusCode: number | null;
  attempts: number;
  ok: number;
  error: string | null;
  createdAt: Date;
}

export function renderDeliveryLogRow(row: DeliveryRow): WebhookDeliveryLogRow {
  const payload = webhookBodyFromStored(row.payload);
  return {
    id: Number(row.id),
    deliveryId: row.deliveryId,
    dispatch: row.dispatch,
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

/** The delivery log's `limit`: default and maximum. */
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;
export const DELIVERY_LOG_MAX_LIMIT = 200;

const ZFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const ZLogCursor = z
  .string()
  .regex(/^[1-9]\d{0,17}$/, 'must be the meta.next_cursor of a previous page')
  .transform((v) => BigInt(v));

export const ZListWebhookDeliveriesQuery = z.object({
  endpoint_id: z.coerce.number().int().positive().max(2_147_483_647).optional().meta({ description: 'Only the deliveries to this endpoint' }),
  // Out-of-range values are clamped rather than refused.
  limit: z.coerce
    .number()
    .int()
    .optional()
    .transform((n) => Math.min(DELIVERY_LOG_MAX_LIMIT, Math.max(1, n ?? DELIVERY_LOG_DEFAULT_LIMIT)))
    .meta({ description: `Rows to return, default ${DELIVERY_LOG_DEFAULT_LIMIT}, clamped to 1 to ${DELIVERY_LOG_MAX_LIMIT}` }),
  event: z.string().max(100).optional().meta({ description: 'Only deliveries of this event name' }),
  ok: ZFlag.optional().meta({ description: 'true: only successful deliveries; false: only failed ones' }),
  from: queryTimeField.optional().meta({ description: 'Only rows created at or after this time (ISO 8601 with its offset)' }),
  to: queryTimeField.optional().meta({ description: 'Only rows created before this time' }),
  cursor: ZLogCursor.optional().meta({ description: '`meta.next_cursor` of the previous page' }),
});
export type ListWebhookDeliveriesQuery = z.output<typeof ZListWebhookDeliveriesQuery>;

export interface WebhookDeliveryPage {
  items: WebhookDeliveryLogRow[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/**
 * Finished dispatches of the workspace's endpoints, newest first, filtered,
 * a page at a time (the cursor is the last row id shown). Pending ones have
 * no outcome yet; a row never sent (its endpoint was switched off before its
 * turn, or was switched off automatically when the event was relayed:
 * `attempts` 0) was no dispatch, so the log, whose rows made 1 to 3
 * attempts, leaves it out. It stays for a recover, and is read by its id.
 */
export async function listWebhookDeliveries(
  db: DbOrTx,
  opts: { workspaceId: number } & Partial<Omit<ListWebhookDeliveriesQuery, 'limit'>> & { limit: number },
): Promise<WebhookDeliveryPage> {
  const rows = await db.webhookDelivery.findMany({
    where: {
      workspaceId: opts.workspaceId,
      completedAt: { not: null },
      attempts: { gt: 0 },
      ...(opts.endpoint_id ? { endpointId: opts.endpoint_id } : {}),
      ...(opts.event !== undefined ? { event: opts.event } : {}),
      ...(opts.ok !== undefined ? { ok: opts.ok ? 1 : 0 } : {}),
      ...(opts.from || opts.to ? { createdAt: { ...(opts.from ? { gte: opts.from } : {}), ...(opts.to ? { lt: opts.to } : {}) } } : {}),
      ...(opts.cursor ? { id: { lt: opts.cursor } } : {}),
    },
    orderBy: { id: 'desc' },
    take: opts.limit + 1,
  });
  const items = rows.slice(0, opts.limit).map(renderDeliveryLogRow);
  return { items, nextCursor: rows.length > opts.limit ? String(items[items.length - 1]!.id) : null };
}

/** One row of the log with what was sent and what came back (GET /webhook-deliveries/:id). */
export interface WebhookDeliveryDetail extends WebhookDeliveryLogRow {
  /** Null while the dispatch is pending. */
  completedAt: string | null;
  /** The headers of the last attempt, as sent (signature included); null when nothing was sent. */
  requestHeaders: Record<string, string> | null;
  /** The start of the last response's body (at most RESPONSE_EXCERPT_BYTES); null without a response. */
  responseExcerpt: string | null;
}

type DetailRow = DeliveryRow & { completedAt: Date | null; requestHeaders: unknown; responseExcerpt: string | null };

function deliveryDetailView(row: DetailRow): WebhookDeliveryDetail {
  return {
    ...renderDeliveryLogRow(row),
    completedAt: row.completedAt?.toISOString() ?? null,
    requestHeaders: (row.requestHeaders as Record<string, string> | null) ?? null,
    responseExcerpt: row.responseExcerpt,
  };
}

const deliveryNotFound = () => new AppError('not_found', 'Webhook delivery not found');

/** Parses a log row id from a path; anything else is simply not found. */
export const parseDeliveryLogId = (raw: unknown): bigint => parseBigPathId(raw, deliveryNotFound);

/** One log row of the workspace's; 404 for anyone else's. */
export async function getWebhookDelivery(db: DbOrTx, opts: { workspaceId: number; id: bigint }): Promise<WebhookDeliveryDetail> {
  const row = await db.webhookDelivery.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId } });
  if (!row) throw deliveryNotFound();
  return deliveryDetailView(row);
}

const refuseUnlessActive = (endpoint: { active: boolean }) => {
  if (!endpoint.active) {
    throw new AppError('invalid_request', 'The endpoint is switched off; enable it (PUT active: true) before sending to it again', {
      details: { reason: 'endpoint_inactive' },
    });
  }
};

/**
 * Sends a finished delivery again (POST /webhook-deliveries/:id/resend): a
 * new pending row, the next dispatch of the same delivery, with the same body
 * (so the same `id` and X-Cowrie-Delivery). The caller queues its job. A
 * delivery still being sent, or to an endpoint switched off, is refused.
 */
export async function resendWebhookDelivery(db: PrismaClient, opts: { workspaceId: number; id: bigint; now?: Date }): Promise<WebhookDeliveryDetail> {
  const source = await db.webhookDelivery.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, include: { endpoint: true } });
  if (!source) throw deliveryNotFound();
  refuseUnlessActive(source.endpoint);
  const row = await db.$transaction(async (tx) => {
    // Dispatch numbers of one delivery are taken one at a time.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhook-delivery:${source.deliveryId}`}))`;
    const latest = await tx.webhookDelivery.findFirst({ where: { deliveryId: source.deliveryId }, orderBy: { dispatch: 'desc' } });
    if (!latest?.completedAt) {
      throw new AppError('invalid_request', 'This delivery is still being sent; wait for its outcome', { details: { reason: 'delivery_pending' } });
    }
    return tx.webhookDelivery.create({
      data: {
        deliveryId: source.deliveryId,
        dispatch: latest.dispatch + 1,
        workspaceId: source.workspaceId,
        endpointId: source.endpointId,
        outboxEventId: source.outboxEventId,
        event: source.event,
        payload: source.payload as Prisma.InputJsonValue,
        createdAt: opts.now ?? new Date(),
      },
    });
  });
  return deliveryDetailView(row);
}

/** Deliveries one recover queues at most; `has_more` says to call again. */
export const RECOVER_MAX_DELIVERIES = 10_000;

export const ZRecoverWebhookDeliveriesRequest = z.object({
  since: isoTimeField.meta({
    format: 'date-time',
    description: 'Recover the failed deliveries of events sent to this endpoint at or after this time (ISO 8601 with its offset)',
  }),
});

export interface RecoveredDeliveries {
  endpoint_id: number;
  since: string;
  /** New dispatches queued. */
  queued: number;
  /** More failed deliveries remain (more than RECOVER_MAX_DELIVERIES): recover again. */
  has_more: boolean;
  /** The dispatches to queue (not part of the answer). */
  dispatches: DispatchKey[];
}

/**
 * Every event delivery to the endpoint since `since` whose latest dispatch
 * failed (the rows stored unsent while it was switched off included) gets a
 * new dispatch (a new pending row, same body and delivery id),
 * oldest first, at most RECOVER_MAX_DELIVERIES. Test pings are not recovered.
 * Under a lock per endpoint, so two recovers never dispatch one delivery twice.
 * The caller queues the dispatches, paced.
 */
export async function recoverWebhookDeliveries(
  db: PrismaClient,
  opts: { workspaceId: number; endpointId: number; since: string; now?: Date },
): Promise<RecoveredDeliveries> {
  const endpoint = await getWebhookEndpoint(db, opts.workspaceId, opts.endpointId);
  refuseUnlessActive(endpoint);
  const since = new Date(opts.since);
  const now = opts.now ?? new Date();
  if (since.getTime() > now.getTime()) {
    throw new AppError('invalid_request', 'since: must not be in the future', { details: { field: 'since' } });
  }
  const created = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhook-recover:${endpoint.id}`}))`;
    return tx.$queryRaw<Array<{ deliveryId: string; dispatch: number; candidates: number }>>`
      WITH candidates AS (
        SELECT l.* FROM (
          SELECT DISTINCT ON (d."deliveryId") d.*, f."id" AS "firstId"
          FROM "WebhookDelivery" f JOIN "WebhookDelivery" d ON d."deliveryId" = f."deliveryId"
          WHERE f."endpointId" = ${endpoint.id} AND f."dispatch" = 0 AND f."outboxEventId" IS NOT NULL
            AND f."createdAt" >= ${since.toISOString()}::timestamptz AT TIME ZONE 'UTC'
          ORDER BY d."deliveryId", d."dispatch" DESC
        ) l
        WHERE l."completedAt" IS NOT NULL AND l."ok" = 0
        ORDER BY l."firstId"
        LIMIT ${RECOVER_MAX_DELIVERIES + 1}
      ),
      queued AS (
        INSERT INTO "WebhookDelivery" ("deliveryId", "dispatch", "workspaceId", "endpointId", "outboxEventId", "event", "payload", "createdAt")
        SELECT c."deliveryId", c."dispatch" + 1, c."workspaceId", c."endpointId", c."outboxEventId", c."event", c."payload",
          ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC'
        FROM (SELECT * FROM candidates ORDER BY "firstId" LIMIT ${RECOVER_MAX_DELIVERIES}) c
        ORDER BY c."firstId"
        RETURNING "id", "deliveryId", "dispatch"
      )
      SELECT "deliveryId", "dispatch", (SELECT count(*) FROM candidates)::int AS "candidates" FROM queued ORDER BY "id"`;
  });
  const dispatches = created.map(({ deliveryId, dispatch }) => ({ deliveryId, dispatch }));
  return {
    endpoint_id: endpoint.id,
    since: since.toISOString(),
    queued: dispatches.length,
    has_more: (created[0]?.candidates ?? 0) > RECOVER_MAX_DELIVERIES,
    dispatches,
  };
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
  return { id: row.id, deliveryId: row.deliveryId, dispatch: 0, endpointId: endpoint.id };
}

/** The outcome of a delivery as stored; `completed` false while it is still pending. */
export async function readDeliveryOutcome(db: DbOrTx, key: DispatchKey) {
  const row = await db.webhookDelivery.findUnique({ where: { deliveryId_dispatch: { deliveryId: key.deliveryId, dispatch: key.dispatch } } });
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

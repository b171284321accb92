import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { jobIdFor, requeueUnlessLive, type Logger, type Mode } from '@cowrie/core';
import { webhooksQueue } from './queue';
import { columnList, defineStatement, inSqlTransaction, sqlColumn, sqlColumns, sqlList, sqlParam, type PrismaClient, type SqlPool } from '@cowrie/db';
import { buildWebhookBody } from './delivery-log';
import { endpointWantsEvent } from './events';
import { NOT_SENT_ENDPOINT_INACTIVE } from './send-delivery';
import { ENDPOINT_DISABLED_EVENT } from '@cowrie/events';
import { outboxEventColumns, webhookDeliveryColumns, webhookEndpointColumns } from './webhook-columns';
import type { DispatchKey } from './delivery-bookkeeping';

/** BullMQ job id of a dispatch: derived from the delivery (so from the event and endpoint) and the dispatch number, never random. */
export const deliveryJobId = (key: DispatchKey) =>
  key.dispatch === 0 ? jobIdFor('webhook', key.deliveryId) : jobIdFor('webhook', key.deliveryId, key.dispatch);

/** The first dispatch of each delivery. */
const firstDispatches = (deliveryIds: readonly string[]): DispatchKey[] => deliveryIds.map((deliveryId) => ({ deliveryId, dispatch: 0 }));

export interface ClaimOutboxResult {
  /** Outbox events claimed and marked relayed. */
  events: number;
  /** Pending delivery rows created, one per (event, matching active endpoint): the ones to queue. */
  deliveryIds: string[];
}

const CLAIM_OUTBOX = defineStatement({
  name: 'cowrie-outbox-claim',
  params: { limit: sqlParam.int },
  text: (p) => `SELECT ${columnList(outboxEventColumns, 'o')}, w."mode" FROM "OutboxEvent" o JOIN "Workspace" w ON w."id" = o."workspaceId"
             WHERE o."relayedAt" IS NULL ORDER BY o."id" LIMIT ${p.limit} FOR UPDATE OF o SKIP LOCKED`,
  result: { ...outboxEventColumns, mode: sqlColumn.text.as<Mode>() },
});

// KEY SHARE holds off a concurrent delete of these endpoints until the claim commits.
// An endpoint the sender switched off (its disabledReason set) still gets its
// events, as unsent rows; one its user set inactive gets none.
const ENDPOINT_RELAY_COLUMNS = { ...webhookEndpointColumns, active: sqlColumn.boolean };
const OUTBOX_ENDPOINTS = defineStatement({
  name: 'cowrie-outbox-endpoints',
  params: { workspaceIds: sqlList(sqlParam.int) },
  text: (p) =>
    `SELECT ${columnList(ENDPOINT_RELAY_COLUMNS)} FROM "WebhookEndpoint" WHERE "workspaceId" = ANY(${p.workspaceIds}::int[])
       AND ("active" = true OR "disabledReason" IS NOT NULL) FOR KEY SHARE`,
  result: ENDPOINT_RELAY_COLUMNS,
});

const NEW_DELIVERY_FIELDS = {
  deliveryId: sqlParam.uuid,
  workspaceId: sqlParam.int,
  endpointId: sqlParam.int,
  outboxEventId: sqlParam.bigint,
  event: sqlParam.text,
  payload: sqlParam.json,
};

/** A delivery row the relay writes. */
interface NewDelivery {
  deliveryId: string;
  workspaceId: number;
  endpointId: number;
  outboxEventId: bigint;
  event: string;
  payload: unknown;
}

const CREATED_DELIVERY_COLUMNS = { deliveryId: webhookDeliveryColumns.deliveryId };
const CREATE_DELIVERIES = defineStatement({
  name: 'cowrie-outbox-deliveries',
  params: {
    deliveries: sqlColumns(NEW_DELIVERY_FIELDS),
    now: sqlParam.timestamp,
  },
  text: (p) => `INSERT INTO "WebhookDelivery" (${p.deliveries.columns}, "createdAt")
               SELECT ${p.deliveries.columns}, ${p.now} FROM ${p.deliveries.unnest} AS t(${p.deliveries.columns})
               ON CONFLICT DO NOTHING RETURNING ${columnList(CREATED_DELIVERY_COLUMNS)}`,
  result: CREATED_DELIVERY_COLUMNS,
});

/**
 * The rows of the endpoints switched off automatically: stored with their
 * outcome, failed and unsent (attempts 0, as the sender stores a row whose
 * endpoint was switched off after the relay), so nothing queues or sweeps
 * them and a recover once the endpoint is enabled again sends them.
 */
const CREATE_UNSENT_DELIVERIES = defineStatement({
  name: 'cowrie-outbox-unsent-deliveries',
  params: {
    deliveries: sqlColumns(NEW_DELIVERY_FIELDS),
    now: sqlParam.timestamp,
    error: sqlParam.text,
  },
  text: (p) => `INSERT INTO "WebhookDelivery" (${p.deliveries.columns}, "createdAt", "completedAt", "ok", "attempts", "error")
               SELECT ${p.deliveries.columns}, ${p.now}, ${p.now}, 0, 0, ${p.error} FROM ${p.deliveries.unnest} AS t(${p.deliveries.columns})
               ON CONFLICT DO NOTHING`,
});

const MARK_RELAYED = defineStatement({
  name: 'cowrie-outbox-relayed',
  params: { ids: sqlList(sqlParam.bigint), now: sqlParam.timestamp },
  text: (p) => `UPDATE "OutboxEvent" SET "relayedAt" = ${p.now} WHERE "id" = ANY(${p.ids}::bigint[])`,
});

/** Whether any event waits to be relayed. */
const OUTBOX_WAITING = defineStatement({
  name: 'cowrie-outbox-waiting',
  text: () => 'SELECT 1 AS "waiting" FROM "OutboxEvent" WHERE "relayedAt" IS NULL LIMIT 1',
  result: { waiting: sqlColumn.int },
});

/**
 * Step 1 of the relay, one transaction on plain pg (it runs many times a
 * second): claims unrelayed outbox events (FOR UPDATE SKIP LOCKED, so relays
 * on several replicas never take the same one), writes one pending delivery
 * row per (event, active endpoint of that workspace whose `events` match),
 * and marks the events relayed. An endpoint the sender switched off
 * automatically (disabledReason set) gets its row too, stored failed and
 * unsent (attempts 0, NOT_SENT_ENDPOINT_INACTIVE): not queued, but there for
 * a recover once it is enabled again. One its user set inactive gets none.
 * Either all of it commits or none does; the (outboxEventId, endpointId)
 * unique constraint refuses a second row for a pair.
 */
export async function claimOutboxEvents(sql: SqlPool, opts: { batchSize: number; now?: Date }): Promise<ClaimOutboxResult> {
  return inSqlTransaction(sql, async (tx) => {
    const { rows: events } = await CLAIM_OUTBOX.run(tx, { limit: opts.batchSize });
    if (events.length === 0) return { events: 0, deliveryIds: [] };
    const { rows: endpoints } = await OUTBOX_ENDPOINTS.run(tx, { workspaceIds: [...new Set(events.map((e) => e.workspaceId))] });
    const now = opts.now ?? new Date();
    const pending: NewDelivery[] = [];
    const unsent: NewDelivery[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.workspaceId !== event.workspaceId || !endpointWantsEvent(endpoint.events, event.event)) continue;
        // An endpoint's own switch-off event goes to the workspace's other endpoints only.
        if (!endpoint.active && event.event === ENDPOINT_DISABLED_EVENT && (event.payload as { endpoint_id?: unknown } | null)?.endpoint_id === endpoint.id)
          continue;
        const deliveryId = randomUUID();
        (endpoint.active ? pending : unsent).push({
          deliveryId,
          workspaceId: event.workspaceId,
          endpointId: endpoint.id,
          outboxEventId: event.id,
          event: event.event,
          payload: buildWebhookBody(deliveryId, event.event, event.createdAt, event.payload, event.mode),
        });
      }
    }
    let deliveryIds: string[] = [];
    if (pending.length) {
      const created = await CREATE_DELIVERIES.run(tx, { deliveries: pending, now });
      deliveryIds = created.rows.map((c) => c.deliveryId);
    }
    if (unsent.length) await CREATE_UNSENT_DELIVERIES.run(tx, { deliveries: unsent, now, error: NOT_SENT_ENDPOINT_INACTIVE });
    await MARK_RELAYED.run(tx, { ids: events.map((e) => e.id), now });
    return { events: events.length, deliveryIds };
  });
}

export interface EnqueueDispatchesOptions {
  /** Spread the jobs out: the i-th waits `startDelayMs + i * intervalMs` (a recover's per-endpoint pace). */
  pace?: { startDelayMs: number; intervalMs: number };
  /**
   * BullMQ priority (1 is the highest; jobs without one come before any with
   * one): a recover's jobs give way to live deliveries.
   */
  priority?: number;
}

/**
 * Step 2 of the relay (and of a resend or recover): one `webhook.deliver` job
 * per dispatch. The job id comes from the dispatch, so queueing the same one
 * again while its job exists adds nothing.
 */
export async function enqueueDeliveries(queue: Queue, dispatches: readonly DispatchKey[], options: EnqueueDispatchesOptions = {}): Promise<void> {
  if (dispatches.length === 0) return;
  const spec = webhooksQueue.jobs['webhook.deliver'];
  const { pace, priority } = options;
  await queue.addBulk(
    dispatches.map((key, i) => ({
      name: 'webhook.deliver',
      data: spec.schema.parse(key),
      opts: {
        jobId: deliveryJobId(key),
        ...(pace ? { delay: pace.startDelayMs + i * pace.intervalMs } : {}),
        ...(priority ? { priority } : {}),
      },
    })),
  );
}

// One wake-up waits at a time (a fixed id), and it is removed once done so the next can be queued.
const WAKE_JOB_ID = 'outbox-relay-wake';

/**
 * For modules that just committed an event and want it out before the
 * relay's next poll: queues an `outbox.relay` wake-up. Optional; the poll
 * delivers everything anyway.
 */
export async function requestOutboxRelay(queue: Queue): Promise<void> {
  await queue.add('outbox.relay', webhooksQueue.jobs['outbox.relay'].schema.parse({}), { jobId: WAKE_JOB_ID, removeOnComplete: true, removeOnFail: true });
}

export interface RelayOutboxOptions {
  sql: SqlPool;
  queue: Queue;
  batchSize: number;
  /** Stop after this many batches even if events remain (the next poll continues). Default 50. */
  maxBatches?: number;
}

/**
 * Moves unrelayed outbox events to the queue until none is left. A crash after
 * step 1 leaves pending delivery rows without jobs; the sweep queues them.
 */
export async function relayOutbox(opts: RelayOutboxOptions): Promise<{ events: number; deliveries: number }> {
  let events = 0;
  let deliveries = 0;
  // Most polls find nothing: a plain indexed read is cheaper than a transaction.
  const waiting = await OUTBOX_WAITING.run(opts.sql, {});
  if (waiting.rows.length === 0) return { events, deliveries };
  for (let batch = 0; batch < (opts.maxBatches ?? 50); batch++) {
    const claimed = await claimOutboxEvents(opts.sql, { batchSize: opts.batchSize });
    await enqueueDeliveries(opts.queue, firstDispatches(claimed.deliveryIds));
    events += claimed.events;
    deliveries += claimed.deliveryIds.length;
    if (claimed.events < opts.batchSize) break;
  }
  return { events, deliveries };
}

/** Where a sweep stopped: the last row it looked at, in (createdAt, id) order. */
export interface SweepCursor {
  createdAt: Date;
  id: bigint;
}

export interface SweepPendingDeliveriesOptions {
  db: PrismaClient;
  queue: Queue;
  /** Only rows pending at least this long are looked at (the relay queues fresh ones itself). */
  olderThanMs: number;
  /** Rows looked at per sweep. Default 500. */
  limit?: number;
  /** Look at the rows after this one (the previous page's `next`); from the oldest without it. */
  after?: SweepCursor;
  now?: Date;
  log?: Logger;
}

/**
 * Re-queues pending deliveries that have no live job: never queued (crash
 * between the relay's commit and its enqueue), or whose job failed or
 * finished without recording an outcome. A row with a waiting, delayed or
 * active job is left to it. The worker skips rows that already have an
 * outcome, so a late duplicate job sends nothing. Looks at one page of
 * `limit` rows, oldest first after `after`; `next` is where the following
 * page starts, or null once the newest was reached.
 */
export async function sweepPendingDeliveries(opts: SweepPendingDeliveriesOptions): Promise<{ requeued: number; next: SweepCursor | null }> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - opts.olderThanMs);
  const limit = opts.limit ?? 500;
  const { after } = opts;
  const stale = await opts.db.webhookDelivery.findMany({
    where: {
      completedAt: null,
      createdAt: { lte: cutoff },
      ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}),
    },
    select: { id: true, createdAt: true, deliveryId: true, dispatch: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
  const toAdd: DispatchKey[] = [];
  let retried = 0;
  for (const { deliveryId, dispatch } of stale) {
    const key = { deliveryId, dispatch };
    // A failed job is retried in place: a delivery job gets one attempt (its retries run inside it).
    const outcome = await requeueUnlessLive(opts.queue, deliveryJobId(key), () => toAdd.push(key), { failed: 'retry' });
    if (outcome === 'retried') {
      retried += 1;
      opts.log?.warn({ deliveryId }, 'webhook delivery job had failed; retried');
    }
  }
  await enqueueDeliveries(opts.queue, toAdd);
  if (toAdd.length) opts.log?.warn({ count: toAdd.length }, 'queued pending webhook deliveries that had no job');
  const last = stale.at(-1);
  return { requeued: toAdd.length + retried, next: stale.length === limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

/**
 * The sweep as a polling loop runs it: each pass looks at the page after the
 * previous one and starts over from the oldest once it reached the newest,
 * so every pending row is looked at within (pending rows / limit) passes. A
 * lost delivery behind more than `limit` healthy ones (a large paced recover,
 * a backlog in its retries) is not left waiting until they are all sent.
 */
export function pendingDeliverySweeper(opts: Omit<SweepPendingDeliveriesOptions, 'after' | 'now'>) {
  let after: SweepCursor | undefined;
  return async (now?: Date): Promise<{ requeued: number }> => {
    const { requeued, next } = await sweepPendingDeliveries({ ...opts, after, now });
    after = next ?? undefined;
    return { requeued };
  };
}

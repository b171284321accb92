import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { jobIdFor, type Logger, type TMode } from '@cowrie/core';
import { webhooksQueue } from './queue';
import { inSqlTransaction, utcTimestamp, type PrismaClient, type SqlPool } from '@cowrie/db';
import { buildWebhookBody } from './deliveries';
import { endpointWantsEvent } from './events';

/** BullMQ job id of a delivery: derived from the delivery (so from the event and endpoint), never random. */
export const deliveryJobId = (deliveryId: string) => jobIdFor('webhook', deliveryId);

export interface ClaimOutboxResult {
  /** Outbox events claimed and marked relayed. */
  events: number;
  /** Delivery rows created, one per (event, matching active endpoint). */
  deliveryIds: string[];
}

interface OutboxRow {
  id: bigint;
  workspaceId: number;
  event: string;
  payload: unknown;
  createdAt: Date;
  mode: TMode;
}

interface EndpointRow {
  id: number;
  workspaceId: number;
  events: string[];
}

/**
 * Step 1 of the relay, one transaction on plain pg (it runs many times a
 * second): claims unrelayed outbox events (FOR UPDATE SKIP LOCKED, so relays
 * on several replicas never take the same one), writes one pending delivery
 * row per (event, active endpoint of that workspace whose `events` match),
 * and marks the events relayed. Either all of it commits or none does; the
 * (outboxEventId, endpointId) unique constraint refuses a second row for a pair.
 */
export async function claimOutboxEvents(sql: SqlPool, opts: { batchSize: number; now?: Date }): Promise<ClaimOutboxResult> {
  return inSqlTransaction(sql, async (tx) => {
    const { rows: events } = await tx.query<OutboxRow>({
      name: 'cowrie-outbox-claim',
      text: `SELECT o."id", o."workspaceId", o."event", o."payload", o."createdAt", w."mode" FROM "OutboxEvent" o JOIN "Workspace" w ON w."id" = o."workspaceId"
             WHERE o."relayedAt" IS NULL ORDER BY o."id" LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
      values: [opts.batchSize],
    });
    if (events.length === 0) return { events: 0, deliveryIds: [] };
    const workspaceIds = [...new Set(events.map((e) => e.workspaceId))];
    // KEY SHARE holds off a concurrent delete of these endpoints until we commit.
    const { rows: endpoints } = await tx.query<EndpointRow>({
      name: 'cowrie-outbox-endpoints',
      text: `SELECT "id", "workspaceId", "events" FROM "WebhookEndpoint" WHERE "workspaceId" = ANY($1::int[]) AND "active" = true FOR KEY SHARE`,
      values: [workspaceIds],
    });
    const now = utcTimestamp(opts.now ?? new Date());
    const rows = {
      deliveryId: [] as string[],
      workspaceId: [] as number[],
      endpointId: [] as number[],
      outboxEventId: [] as string[],
      event: [] as string[],
      payload: [] as string[],
    };
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.workspaceId !== event.workspaceId || !endpointWantsEvent(endpoint.events, event.event)) continue;
        const deliveryId = randomUUID();
        rows.deliveryId.push(deliveryId);
        rows.workspaceId.push(event.workspaceId);
        rows.endpointId.push(endpoint.id);
        rows.outboxEventId.push(String(event.id));
        rows.event.push(event.event);
        rows.payload.push(JSON.stringify(buildWebhookBody(deliveryId, event.event, event.createdAt, event.payload, event.mode)));
      }
    }
    let deliveryIds: string[] = [];
    if (rows.deliveryId.length) {
      const created = await tx.query<{ deliveryId: string }>({
        name: 'cowrie-outbox-deliveries',
        text: `INSERT INTO "WebhookDelivery" ("deliveryId", "workspaceId", "endpointId", "outboxEventId", "event", "payload", "createdAt")
               SELECT d, w, e, o, ev, p, $7 FROM unnest($1::uuid[], $2::int[], $3::int[], $4::bigint[], $5::text[], $6::jsonb[]) AS t(d, w, e, o, ev, p)
               ON CONFLICT DO NOTHING RETURNING "deliveryId"`,
        values: [rows.deliveryId, rows.workspaceId, rows.endpointId, rows.outboxEventId, rows.event, rows.payload, now],
      });
      deliveryIds = created.rows.map((c) => c.deliveryId);
    }
    await tx.query({
      name: 'cowrie-outbox-relayed',
      text: 'UPDATE "OutboxEvent" SET "relayedAt" = $2 WHERE "id" = ANY($1::bigint[])',
      values: [events.map((e) => String(e.id)), now],
    });
    return { events: events.length, deliveryIds };
  });
}

/**
 * Step 2 of the relay: one `webhook.deliver` job per delivery. The job id comes
 * from the delivery, so queueing the same delivery again while its job exists
 * adds nothing.
 */
export async function enqueueDeliveries(queue: Queue, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  const spec = webhooksQueue.jobs['webhook.deliver'];
  await queue.addBulk(
    deliveryIds.map((deliveryId) => ({
      name: 'webhook.deliver',
      data: spec.schema.parse({ deliveryId }),
      opts: { jobId: deliveryJobId(deliveryId) },
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
  const waiting = await opts.sql.query({ name: 'cowrie-outbox-waiting', text: 'SELECT 1 FROM "OutboxEvent" WHERE "relayedAt" IS NULL LIMIT 1' });
  if (waiting.rows.length === 0) return { events, deliveries };
  for (let batch = 0; batch < (opts.maxBatches ?? 50); batch++) {
    const claimed = await claimOutboxEvents(opts.sql, { batchSize: opts.batchSize });
    await enqueueDeliveries(opts.queue, claimed.deliveryIds);
    events += claimed.events;
    deliveries += claimed.deliveryIds.length;
    if (claimed.events < opts.batchSize) break;
  }
  return { events, deliveries };
}

export interface SweepPendingDeliveriesOptions {
  db: PrismaClient;
  queue: Queue;
  /** Only rows pending at least this long are looked at (the relay queues fresh ones itself). */
  olderThanMs: number;
  /** Rows looked at per sweep. Default 500. */
  limit?: number;
  now?: Date;
  log?: Logger;
}

/**
 * Re-queues pending deliveries that have no live job: never queued (crash
 * between the relay's commit and its enqueue), or whose job failed or
 * finished without recording an outcome. A row with a waiting, delayed or
 * active job is left to it. The worker skips rows that already have an
 * outcome, so a late duplicate job sends nothing.
 */
export async function sweepPendingDeliveries(opts: SweepPendingDeliveriesOptions): Promise<{ requeued: number }> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - opts.olderThanMs);
  const stale = await opts.db.webhookDelivery.findMany({
    where: { completedAt: null, createdAt: { lte: cutoff } },
    select: { deliveryId: true },
    orderBy: { createdAt: 'asc' },
    take: opts.limit ?? 500,
  });
  const toAdd: string[] = [];
  let retried = 0;
  for (const { deliveryId } of stale) {
    const jobId = deliveryJobId(deliveryId);
    const state = await opts.queue.getJobState(jobId);
    if (state === 'unknown') {
      toAdd.push(deliveryId);
    } else if (state === 'failed') {
      const job = await opts.queue.getJob(jobId);
      await job?.retry('failed');
      retried += 1;
      opts.log?.warn({ deliveryId }, 'webhook delivery job had failed; retried');
    } else if (state === 'completed') {
      const job = await opts.queue.getJob(jobId);
      await job?.remove();
      toAdd.push(deliveryId);
    }
  }
  await enqueueDeliveries(opts.queue, toAdd);
  if (toAdd.length) opts.log?.warn({ count: toAdd.length }, 'queued pending webhook deliveries that had no job');
  return { requeued: toAdd.length + retried };
}

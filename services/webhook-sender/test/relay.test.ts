// Risk: an outbox event lost, or delivered twice, when the relay dies between
// claiming events and queueing their jobs, when a job is queued twice, or when
// several relays run side by side.
import type { Queue } from 'bullmq';
import { createWorkspace } from '@cowrie/accounts';
import { createRedis, openQueue, type RedisClient } from '@cowrie/core';
import { startHttpReceiver, waitFor, type HttpReceiver, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import {
  claimOutboxEvents,
  deliveryJobId,
  enqueueDeliveries,
  NOT_SENT_ENDPOINT_INACTIVE,
  ENDPOINT_DISABLED_EVENT,
  createAddressPolicy,
  updateWebhookEndpoint,
  pendingDeliverySweeper,
  relayOutbox,
  requestOutboxRelay,
  sweepPendingDeliveries,
  webhooksQueue,
} from '@cowrie/webhooks';
import { startWebhookWorker, type RunningWebhookWorker } from '../src/worker';
import { addEndpoint, emit } from './helpers';

let env: TestEnv;
let connection: RedisClient;
let queue: Queue;
let receiver: HttpReceiver;
let workspaceId: number;
let worker: RunningWebhookWorker;

beforeAll(async () => {
  env = await createTestEnv({ WEBHOOK_SWEEP_AFTER_MS: '200', WEBHOOK_RELAY_POLL_MS: '50' });
  connection = createRedis(env.config, { forBullmq: true, name: 'relay-test' });
  queue = openQueue(webhooksQueue, { connection, prefix: env.config.QUEUE_PREFIX });
  receiver = await startHttpReceiver();
  workspaceId = (await createWorkspace(env.db, { name: 'Relay' })).id;
  // Consumes jobs only: these tests drive the relay step by step themselves.
  worker = await startWebhookWorker(env.config, env.logger, { relay: false });
});
afterAll(async () => {
  await worker?.stop();
  await queue?.close();
  connection?.disconnect();
  await receiver?.close();
  await env?.cleanup();
});
beforeEach(async () => {
  receiver.requests.length = 0;
  await env.db.webhookEndpoint.deleteMany({});
});

/** Claims the one pending event; returns its one delivery id. */
async function claimOne(): Promise<string> {
  const { events, deliveryIds } = await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect([events, deliveryIds.length]).toEqual([1, 1]);
  return deliveryIds[0]!;
}
const received = (path: string) => receiver.requests.filter((r) => r.path === path);
const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

test('killed between claim and enqueue: the restarted sender delivers the event exactly once', async () => {
  const endpoint = await addEndpoint(env, workspaceId, `${receiver.url}/crash`);
  const eventId = await emit(env, workspaceId, 'transfer.completed', { id: 1 });

  // Step 1 commits (delivery row + event marked relayed), then the process "dies" before step 2.
  const claimed = await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect(claimed.events).toBe(1);
  expect(claimed.deliveryIds).toHaveLength(1);
  const deliveryId = claimed.deliveryIds[0]!;
  expect((await env.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).relayedAt).not.toBeNull();
  expect(await env.db.webhookDelivery.findMany({ where: { outboxEventId: eventId } })).toEqual([
    expect.objectContaining({ deliveryId, endpointId: endpoint.id, completedAt: null }),
  ]);
  expect(await queue.getJobState(deliveryJobId({ deliveryId, dispatch: 0 }))).toBe('unknown');

  // A relay pass finds nothing left to claim: no second delivery row.
  expect(await relayOutbox({ sql: env.sql, queue, batchSize: 10 })).toEqual({ events: 0, deliveries: 0 });

  // The sender restarts with its relay loop; its sweep queues the orphaned delivery.
  const restarted = await startWebhookWorker(env.config, env.logger);
  try {
    await waitFor(async () => (await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } } })).completedAt);
    await settle();
    expect((await sweepPendingDeliveries({ db: env.db, queue, olderThanMs: 0 })).requeued).toBe(0);
    await settle();
  } finally {
    await restarted.stop();
  }
  expect(received('/crash')).toHaveLength(1);
  expect(received('/crash')[0]!.headers['x-cowrie-delivery']).toBe(deliveryId);
  expect(await env.db.webhookDelivery.count({ where: { outboxEventId: eventId } })).toBe(1);
});

test('a delivery queued again (relay restarted after enqueue, sweep racing) is sent once', async () => {
  await addEndpoint(env, workspaceId, `${receiver.url}/twice`);
  await emit(env, workspaceId, 'transfer.completed', { id: 2 });
  await worker.worker.pause();
  let deliveryId: string;
  try {
    deliveryId = await claimOne();
    await enqueueDeliveries(queue, [{ deliveryId, dispatch: 0 }]);
    await enqueueDeliveries(queue, [{ deliveryId, dispatch: 0 }]);
    expect((await sweepPendingDeliveries({ db: env.db, queue, olderThanMs: 0 })).requeued).toBe(0);
    expect(await queue.getJobCounts('waiting', 'wait')).toMatchObject({ waiting: 1 });
  } finally {
    worker.worker.resume();
  }
  await waitFor(async () => (await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } } })).completedAt);
  // Queued once more after it finished: the worker sees the outcome and sends nothing.
  await (await queue.getJob(deliveryJobId({ deliveryId, dispatch: 0 })))!.remove();
  await enqueueDeliveries(queue, [{ deliveryId, dispatch: 0 }]);
  await waitFor(async () => (await queue.getJobState(deliveryJobId({ deliveryId, dispatch: 0 }))) === 'completed');
  await settle();
  expect(received('/twice')).toHaveLength(1);
});

test('a delivery whose job failed before recording an outcome is retried by the sweep', async () => {
  const endpoint = await addEndpoint(env, workspaceId, `${receiver.url}/failed-job`);
  const sealed = (await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).secretEncrypted;
  // A transient fault: the secret cannot be unsealed, so the job throws before sending.
  await env.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secretEncrypted: 'v1.broken.broken.broken' } });
  await emit(env, workspaceId, 'transfer.completed', { id: 3 });
  const deliveryId = await claimOne();
  await enqueueDeliveries(queue, [{ deliveryId, dispatch: 0 }]);
  await waitFor(async () => (await queue.getJobState(deliveryJobId({ deliveryId, dispatch: 0 }))) === 'failed');
  expect((await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } } })).completedAt).toBeNull();
  expect(received('/failed-job')).toHaveLength(0);

  await env.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secretEncrypted: sealed } });
  expect((await sweepPendingDeliveries({ db: env.db, queue, olderThanMs: 0 })).requeued).toBe(1);
  await waitFor(async () => (await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } } })).completedAt);
  expect(received('/failed-job')).toHaveLength(1);
  expect(await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } } })).toMatchObject({ ok: 1, attempts: 1 });
});

test('a lost delivery behind more healthy pending ones than a sweep looks at is queued within a pass per page, not after they are all sent', async () => {
  await addEndpoint(env, workspaceId, `${receiver.url}/behind`);
  for (let i = 0; i < 5; i++) await emit(env, workspaceId, 'transfer.completed', { id: 100 + i });
  const { deliveryIds } = await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect(deliveryIds).toHaveLength(5);
  // Four older rows whose jobs wait a minute (a paced recover, a retry's backoff); the newest lost its job.
  const base = Date.now() - 60_000;
  for (const [i, deliveryId] of deliveryIds.entries()) {
    await env.db.webhookDelivery.update({ where: { deliveryId_dispatch: { deliveryId, dispatch: 0 } }, data: { createdAt: new Date(base + i * 1000) } });
  }
  const healthy = deliveryIds.slice(0, 4).map((deliveryId) => ({ deliveryId, dispatch: 0 }));
  const lost = { deliveryId: deliveryIds[4]!, dispatch: 0 };
  await enqueueDeliveries(queue, healthy, { pace: { startDelayMs: 60_000, intervalMs: 0 } });

  const sweep = pendingDeliverySweeper({ db: env.db, queue, olderThanMs: 0, limit: 3 });
  expect(await sweep()).toEqual({ requeued: 0 });
  expect(await sweep()).toEqual({ requeued: 1 });
  await waitFor(async () => (await env.db.webhookDelivery.findUniqueOrThrow({ where: { deliveryId_dispatch: lost } })).completedAt);
  expect(received('/behind').map((r) => r.headers['x-cowrie-delivery'])).toEqual([lost.deliveryId]);
  // From the oldest again: the delayed ones are still left to their jobs.
  expect(await sweep()).toEqual({ requeued: 0 });
  for (const key of healthy) expect(await queue.getJobState(deliveryJobId(key))).toBe('delayed');
  for (const key of healthy) await (await queue.getJob(deliveryJobId(key)))?.remove();
  await env.db.webhookDelivery.updateMany({ where: { deliveryId: { in: deliveryIds } }, data: { completedAt: new Date() } });
});

test('a relay that dies inside its transaction leaves the event to the next one; locked events are skipped, not waited for', async () => {
  await addEndpoint(env, workspaceId, `${receiver.url}/locked`);
  const eventId = await emit(env, workspaceId, 'transfer.completed', { id: 4 });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const dying = env.db
    .$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "OutboxEvent" WHERE "id" = ${eventId} FOR UPDATE`;
      await tx.webhookDelivery.create({
        data: {
          deliveryId: '00000000-0000-4000-8000-000000000004',
          workspaceId,
          endpointId: (await tx.webhookEndpoint.findFirstOrThrow()).id,
          outboxEventId: eventId,
          event: 'transfer.completed',
          payload: {},
        },
      });
      locked();
      await gate;
      throw new Error('relay killed');
    })
    .catch(() => 'rolled back');
  await isLocked;
  const started = Date.now();
  expect(await claimOutboxEvents(env.sql, { batchSize: 10 })).toEqual({ events: 0, deliveryIds: [] });
  expect(Date.now() - started).toBeLessThan(1000);
  release();
  expect(await dying).toBe('rolled back');
  expect(await env.db.webhookDelivery.count({ where: { outboxEventId: eventId } })).toBe(0);

  const relayed = await relayOutbox({ sql: env.sql, queue, batchSize: 10 });
  expect(relayed).toEqual({ events: 1, deliveries: 1 });
  await waitFor(() => received('/locked').length === 1);
  await settle();
  expect(received('/locked')).toHaveLength(1);
});

test('an endpoint switched off automatically still gets its events, stored failed and unsent for a recover; one the user switched off gets none', async () => {
  const auto = await addEndpoint(env, workspaceId, `${receiver.url}/auto-off`);
  const user = await addEndpoint(env, workspaceId, `${receiver.url}/user-off`, { active: false });
  const on = await addEndpoint(env, workspaceId, `${receiver.url}/on`);
  // What the sender's automatic disable leaves: inactive, with its reason.
  await env.db.webhookEndpoint.update({
    where: { id: auto.id },
    data: {
      active: false,
      disabledReason: 'Every delivery failed since 2026-01-01 00:00 UTC (10 failures); switched off automatically',
      disabledAt: new Date(),
    },
  });
  const eventId = await emit(env, workspaceId, 'transfer.completed', { id: 7 });
  const claimed = await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect(claimed.events).toBe(1);
  // Only the active endpoint's row is pending, so only it is queued.
  expect(claimed.deliveryIds).toHaveLength(1);
  const rows = await env.db.webhookDelivery.findMany({ where: { outboxEventId: eventId }, orderBy: { endpointId: 'asc' } });
  expect(rows.map((r) => r.endpointId)).toEqual([auto.id, on.id]);
  expect(rows.map((r) => r.endpointId)).not.toContain(user.id);
  const [unsent, pending] = rows;
  expect(pending).toMatchObject({ deliveryId: claimed.deliveryIds[0], completedAt: null });
  expect(unsent).toMatchObject({ dispatch: 0, ok: 0, attempts: 0, statusCode: null, error: NOT_SENT_ENDPOINT_INACTIVE, requestHeaders: null });
  expect(unsent!.completedAt).toEqual(unsent!.createdAt);
  expect(unsent!.payload).toMatchObject({ id: unsent!.deliveryId, event: 'transfer.completed', data: { id: 7 } });

  // Nothing is sent to it, now or by the sweep: only a recover sends it.
  await enqueueDeliveries(
    queue,
    claimed.deliveryIds.map((deliveryId) => ({ deliveryId, dispatch: 0 })),
  );
  await waitFor(() => received('/on').length === 1);
  expect((await sweepPendingDeliveries({ db: env.db, queue, olderThanMs: 0 })).requeued).toBe(0);
  await settle();
  expect(received('/auto-off')).toHaveLength(0);
  expect(received('/user-off')).toHaveLength(0);
  // Its run of failures is the sender's count of real attempts: an unsent row adds nothing.
  expect(await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: auto.id } })).toMatchObject({ failureStreak: 0, failingSince: null });
});

test('an endpoint switched off automatically and then by its user gets no more rows; nor does one get a row for its own switch-off event', async () => {
  const auto = await addEndpoint(env, workspaceId, `${receiver.url}/auto-then-user`);
  await env.db.webhookEndpoint.update({
    where: { id: auto.id },
    data: { active: false, disabledReason: 'Every delivery failed; switched off automatically', disabledAt: new Date() },
  });
  // Its own switch-off event goes to the workspace's other endpoints, never to it.
  const disabledEvent = await emit(env, workspaceId, ENDPOINT_DISABLED_EVENT, { endpoint_id: auto.id, url: auto.url });
  await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect(await env.db.webhookDelivery.count({ where: { outboxEventId: disabledEvent, endpointId: auto.id } })).toBe(0);
  // Its user then switches it off for good: nothing more is kept for it.
  await updateWebhookEndpoint(env.db, { workspaceId, id: auto.id, input: { active: false }, policy: createAddressPolicy(env.config.WEBHOOK_ALLOWED_CIDRS) });
  expect(await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: auto.id } })).toMatchObject({ active: false, disabledReason: null, disabledAt: null });
  const later = await emit(env, workspaceId, 'transfer.completed', { id: 8 });
  await claimOutboxEvents(env.sql, { batchSize: 10 });
  expect(await env.db.webhookDelivery.count({ where: { outboxEventId: later, endpointId: auto.id } })).toBe(0);
});

test('relays running side by side create exactly one delivery per (event, endpoint)', async () => {
  const a = await addEndpoint(env, workspaceId, `${receiver.url}/a`);
  const b = await addEndpoint(env, workspaceId, `${receiver.url}/b`);
  const eventIds: bigint[] = [];
  for (let i = 0; i < 40; i++) eventIds.push(await emit(env, workspaceId, 'transfer.completed', { id: 100 + i }));
  const results = await Promise.all(Array.from({ length: 4 }, () => relayOutbox({ sql: env.sql, queue, batchSize: 7 })));
  expect(results.reduce((n, r) => n + r.events, 0)).toBe(40);
  expect(results.reduce((n, r) => n + r.deliveries, 0)).toBe(80);
  await waitFor(() => received('/a').length + received('/b').length >= 80, 20_000);
  await settle();
  expect(received('/a')).toHaveLength(40);
  expect(received('/b')).toHaveLength(40);
  expect(new Set(receiver.requests.map((r) => r.headers['x-cowrie-delivery'])).size).toBe(80);
  const rows = await env.db.webhookDelivery.findMany({ where: { outboxEventId: { in: eventIds } } });
  expect(new Set(rows.map((r) => `${r.outboxEventId}-${r.endpointId}`)).size).toBe(80);
  expect(rows.every((r) => r.endpointId === a.id || r.endpointId === b.id)).toBe(true);
});

test('the database refuses a second delivery row for the same (event, endpoint)', async () => {
  const endpoint = await addEndpoint(env, workspaceId, `${receiver.url}/unique`);
  const eventId = await emit(env, workspaceId, 'transfer.completed', { id: 5 });
  const row = (n: number) => ({
    deliveryId: `00000000-0000-4000-8000-00000000010${n}`,
    workspaceId,
    endpointId: endpoint.id,
    outboxEventId: eventId,
    event: 'transfer.completed',
    payload: {},
  });
  await env.db.webhookDelivery.create({ data: row(1) });
  await expect(env.db.webhookDelivery.create({ data: row(2) })).rejects.toMatchObject({ code: 'P2002' });
  await env.db.webhookDelivery.deleteMany({ where: { outboxEventId: eventId } });
  await env.db.outboxEvent.update({ where: { id: eventId }, data: { relayedAt: new Date() } });
});

test('an outbox.relay wake-up job relays pending events without waiting for a poll', async () => {
  await addEndpoint(env, workspaceId, `${receiver.url}/wake`);
  const eventId = await emit(env, workspaceId, 'transfer.completed', { id: 6 });
  // This worker runs no poll: only the wake-up can move the event.
  await settle(200);
  expect((await env.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).relayedAt).toBeNull();
  await requestOutboxRelay(queue);
  await waitFor(() => received('/wake').length === 1);
  expect((await env.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).relayedAt).not.toBeNull();
});

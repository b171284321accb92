// Risk: one slow endpoint holding every delivery slot of the sender, so every
// other workspace's webhooks (live ones included) wait behind its timeouts and
// retries; a delivery put back for later counted as an attempt, sent twice or
// lost; a slot of a sender that died mid-send held forever.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkspace } from '@cowrie/accounts';
import { startHttpReceiver, waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createEndpointSlots, deliveryJobId, webhookSlotLeaseMs } from '@cowrie/webhooks';
import { startWebhookWorker, type RunningWebhookWorker } from '../src/worker';
import { addEndpoint, emit, finishedDeliveries } from './helpers';

// Long enough that a slow endpoint's delivery (3 attempts and the waits
// between them: 3 × 2 s + 2 s) outlasts anything a loaded machine does to a
// healthy one; small slot counts so a handful of deliveries fill them.
const TIMEOUT_MS = 2000;
const WORKER_CONCURRENCY = 4;
const ENDPOINT_CONCURRENCY = 2;

let env: TestEnv;
let worker: RunningWebhookWorker;

beforeAll(async () => {
  env = await createTestEnv({
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RELAY_POLL_MS: '20',
    WEBHOOK_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
  });
  worker = await startWebhookWorker(env.config, env.logger);
});
afterAll(async () => {
  await worker?.stop();
  await env?.cleanup();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/**
 * A receiver that holds every request open until it is answered (`hang`) or
 * answers after `delayMs`, and counts the requests open at once, which no
 * cap may let exceed the slots one endpoint may hold.
 */
async function slowReceiver(opts: { hang: boolean; delayMs?: number }) {
  const state = { hang: opts.hang, open: 0, maxOpen: 0, deliveryIds: [] as string[], held: [] as Array<() => void> };
  const server: Server = createServer((req, res) => {
    state.open += 1;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    let closed = false;
    res.on('close', () => {
      if (!closed) state.open -= 1;
      closed = true;
    });
    req.resume();
    req.on('end', () => {
      state.deliveryIds.push(req.headers['x-cowrie-delivery'] as string);
      const answer = () => {
        if (!res.writableEnded) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (state.hang) state.held.push(answer);
      else setTimeout(answer, opts.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url,
    state,
    /** From now on every request is answered, and those held are answered now. */
    release() {
      state.hang = false;
      for (const answer of state.held.splice(0)) answer();
    },
  };
}

/** Every request to an endpoint carried the delivery id of a row of its log, and each row's attempts are the requests made for it: nothing was put back as an attempt, nothing sent beyond its attempts. */
async function expectAttemptsAsSent(endpointId: number, deliveryIds: readonly string[], count: number) {
  const rows = await finishedDeliveries(env, endpointId);
  expect(rows).toHaveLength(count);
  expect(new Set(deliveryIds)).toEqual(new Set(rows.map((r) => r.deliveryId)));
  for (const row of rows) {
    expect(row).toMatchObject({ ok: 1, statusCode: 200 });
    expect(deliveryIds.filter((id) => id === row.deliveryId)).toHaveLength(row.attempts);
  }
  return rows;
}

test("a slow endpoint holds at most its own slots: another workspace's delivery arrives while the slow ones are still in flight", async () => {
  const slow = await slowReceiver({ hang: true });
  const healthy = await startHttpReceiver();
  cleanups.push(() => healthy.close());
  const busy = (await createWorkspace(env.db, { name: 'Busy test traffic' })).id;
  const other = (await createWorkspace(env.db, { name: 'Live elsewhere' })).id;
  const slowEndpoint = await addEndpoint(env, busy, slow.url);
  const healthyEndpoint = await addEndpoint(env, other, `${healthy.url}/live`);

  // More deliveries to the slow endpoint than the sender has slots.
  const count = WORKER_CONCURRENCY * 2;
  for (let i = 0; i < count; i++) await emit(env, busy, 'transfer.completed', { id: i });
  await waitFor(() => slow.state.open >= ENDPOINT_CONCURRENCY);
  // Time for the sender to pick up everything it will (all its slots, uncapped).
  await new Promise((resolve) => setTimeout(resolve, 300));

  await emit(env, other, 'transfer.completed', { id: 'live' });
  await waitFor(() => healthy.requests.length === 1, 30_000);
  // It arrived while the slow endpoint's deliveries were still being sent: not one has its outcome yet.
  expect(await env.db.webhookDelivery.count({ where: { endpointId: slowEndpoint.id, completedAt: { not: null } } })).toBe(0);
  expect(slow.state.open).toBeGreaterThan(0);
  expect(slow.state.maxOpen).toBe(ENDPOINT_CONCURRENCY);
  const [live] = await waitFor(async () => {
    const rows = await finishedDeliveries(env, healthyEndpoint.id);
    return rows.length === 1 ? rows : null;
  });
  expect(live).toMatchObject({ ok: 1, attempts: 1 });

  // The receiver recovers: every slow delivery arrives, those put back for later with their first attempt.
  slow.release();
  await waitFor(async () => (await finishedDeliveries(env, slowEndpoint.id)).length === count, 30_000, 50);
  const rows = await expectAttemptsAsSent(slowEndpoint.id, slow.state.deliveryIds, count);
  expect(rows.filter((r) => r.attempts === 1).length).toBeGreaterThanOrEqual(count - ENDPOINT_CONCURRENCY);
  expect(slow.state.maxOpen).toBe(ENDPOINT_CONCURRENCY);
  expect(healthy.requests).toHaveLength(1);
}, 60_000);

test('deliveries to an endpoint at its cap wait their turn: each is sent once, with one attempt', async () => {
  const slowish = await slowReceiver({ hang: false, delayMs: 300 });
  const workspaceId = (await createWorkspace(env.db, { name: 'Slowish' })).id;
  const endpoint = await addEndpoint(env, workspaceId, slowish.url);
  const count = 10;
  for (let i = 0; i < count; i++) await emit(env, workspaceId, 'transfer.completed', { id: i });
  await waitFor(async () => (await finishedDeliveries(env, endpoint.id)).length === count, 30_000, 50);
  const rows = await expectAttemptsAsSent(endpoint.id, slowish.state.deliveryIds, count);
  expect(rows.every((r) => r.attempts === 1)).toBe(true);
  expect(slowish.state.deliveryIds).toHaveLength(count);
  expect(slowish.state.maxOpen).toBe(ENDPOINT_CONCURRENCY);
}, 60_000);

test('slots held by a sender that died mid-send come back once their lease lapses', async () => {
  const r = await startHttpReceiver();
  cleanups.push(() => r.close());
  const workspaceId = (await createWorkspace(env.db, { name: 'After a crash' })).id;
  const endpoint = await addEndpoint(env, workspaceId, r.url);
  // A sender killed while sending held every slot of the endpoint and never gave them back.
  const slots = createEndpointSlots(env.redis, {
    keyPrefix: env.config.REDIS_KEY_PREFIX,
    perEndpoint: ENDPOINT_CONCURRENCY,
    attemptTimeoutMs: TIMEOUT_MS,
  });
  expect(slots.leaseMs).toBe(webhookSlotLeaseMs(TIMEOUT_MS));
  const startedAt = Date.now();
  for (let i = 0; i < ENDPOINT_CONCURRENCY; i++) {
    expect(await slots.take(endpoint.id, deliveryJobId({ deliveryId: `00000000-0000-4000-8000-00000000000${i}`, dispatch: 0 }))).not.toBeNull();
  }
  await emit(env, workspaceId, 'transfer.completed', { id: 'after the crash' });
  const [row] = await waitFor(
    async () => {
      const rows = await finishedDeliveries(env, endpoint.id);
      return rows.length === 1 ? rows : null;
    },
    slots.leaseMs + 3 * TIMEOUT_MS,
    50,
  );
  // Not before the dead sender's leases ran out, and sent once then, with one attempt.
  expect(r.requests[0]!.receivedAt - startedAt).toBeGreaterThanOrEqual(slots.leaseMs - 100);
  expect(r.requests).toHaveLength(1);
  expect(row).toMatchObject({ ok: 1, attempts: 1 });
}, 60_000);

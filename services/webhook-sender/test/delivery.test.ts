// Risk: deliveries that a receiver cannot verify, that differ between the
// signed bytes and the sent bytes, that retry too often, too fast or forever,
// that reach endpoints that did not subscribe or belong to another workspace.
import { createWorkspace } from '@cowrie/accounts';
import { startHttpReceiver, waitFor, type HttpReceiver, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { NOT_SENT_ENDPOINT_INACTIVE, verifyWebhookSignature } from '@cowrie/webhooks';
import { startWebhookWorker, type RunningWebhookWorker } from '../src/worker';
import { addEndpoint, emit, finishedDeliveries } from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Short enough to keep the suite fast, long enough for a loaded CI machine to answer a healthy receiver.
const TIMEOUT_MS = 800;

let env: TestEnv;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
let workspaceId: number;

beforeAll(async () => {
  env = await createTestEnv({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RELAY_POLL_MS: '50' });
  worker = await startWebhookWorker(env.config, env.logger);
  receiver = await startHttpReceiver();
  workspaceId = (await createWorkspace(env.db, { name: 'Deliveries' })).id;
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await env?.cleanup();
});

/** A receiver of its own for one test. */
async function freshReceiver(reply?: HttpReceiver['reply']) {
  const r = await startHttpReceiver(reply);
  cleanups.push(() => r.close());
  return r;
}
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('end to end: an event recorded in a transaction is delivered, signed, and logged', async () => {
  const r = await freshReceiver();
  const endpoint = await addEndpoint(env, workspaceId, `${r.url}/hooks/cowrie`);
  const data = {
    reference: 'f0b9d3c2-0000-4000-8000-000000000001',
    channel: 'sms',
    destination: '+234803****678',
    status: 'verified',
    attempts: 1,
    verified_at: '2026-11-22T10:00:00.000Z',
  };
  const eventId = await emit(env, workspaceId, 'verification.verified', data);

  await waitFor(() => r.requests.length === 1);
  const req = r.requests[0]!;
  expect(req.method).toBe('POST');
  expect(req.path).toBe('/hooks/cowrie');
  expect(req.headers['content-type']).toBe('application/json');
  expect(req.headers['x-cowrie-event']).toBe('verification.verified');

  const raw = req.rawBody.toString('utf8');
  const body = JSON.parse(raw);
  // The API's fields in its order, then `livemode` (an addition: false for a test-mode event).
  expect(Object.keys(body)).toEqual(['id', 'event', 'created_at', 'data', 'livemode']);
  expect(body.livemode).toBe(true);
  expect(body.id).toMatch(UUID);
  expect(req.headers['x-cowrie-delivery']).toBe(body.id);
  expect(body.event).toBe('verification.verified');
  expect(body.data).toEqual(data);
  const outbox = await env.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } });
  expect(body.created_at).toBe(outbox.createdAt.toISOString());
  expect(outbox.relayedAt).not.toBeNull();

  // The signature covers exactly the bytes that arrived, with the secret shown at creation.
  const header = req.headers['x-cowrie-signature'] as string;
  expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(verifyWebhookSignature({ rawBody: req.rawBody, header, secret: endpoint.secret })).toBe(true);
  expect(Math.abs(Number(/^t=(\d+)/.exec(header)![1]) - Date.now() / 1000)).toBeLessThan(10);
  expect(verifyWebhookSignature({ rawBody: JSON.stringify(body, null, 1), header, secret: endpoint.secret })).toBe(false);

  const [row] = await waitFor(async () => {
    const rows = await finishedDeliveries(env, endpoint.id);
    return rows.length === 1 ? rows : null;
  });
  expect(row).toMatchObject({ deliveryId: body.id, event: 'verification.verified', statusCode: 200, attempts: 1, ok: 1, error: null, outboxEventId: eventId });
  expect(row!.payload).toEqual(body);
});

test('retries follow 0 / 500 / 1500 ms with the same delivery id and bytes; any 2xx acknowledges', async () => {
  const elsewhere = await freshReceiver();
  const r = await freshReceiver((_req, i) =>
    i === 0 ? { status: 500 } : i === 1 ? { status: 307, headers: { location: `${elsewhere.url}/moved` } } : { status: 204 },
  );
  const endpoint = await addEndpoint(env, workspaceId, r.url);
  await emit(env, workspaceId, 'transfer.completed', { id: 1 });

  const [row] = await waitFor(async () => {
    const rows = await finishedDeliveries(env, endpoint.id);
    return rows.length === 1 ? rows : null;
  });
  expect(r.requests).toHaveLength(3);
  const [a, b, c] = r.requests as [(typeof r.requests)[0], (typeof r.requests)[0], (typeof r.requests)[0]];
  expect(new Set(r.requests.map((q) => q.headers['x-cowrie-delivery'])).size).toBe(1);
  expect(b.rawBody.equals(a.rawBody) && c.rawBody.equals(a.rawBody)).toBe(true);
  for (const q of r.requests)
    expect(verifyWebhookSignature({ rawBody: q.rawBody, header: q.headers['x-cowrie-signature'] as string, secret: endpoint.secret })).toBe(true);
  const gap1 = b.receivedAt - a.receivedAt;
  const gap2 = c.receivedAt - b.receivedAt;
  expect(gap1).toBeGreaterThanOrEqual(495);
  expect(gap1).toBeLessThan(1400);
  expect(gap2).toBeGreaterThanOrEqual(1495);
  expect(gap2).toBeLessThan(3000);
  // The redirect was not followed: nothing reached its location, and it counted as a failure.
  expect(elsewhere.requests).toHaveLength(0);
  expect(row).toMatchObject({ ok: 1, attempts: 3, statusCode: 204, error: null });
});

test('a receiver that always fails gets exactly 3 attempts, then a failed log row and nothing more', async () => {
  const r = await freshReceiver(() => ({ status: 503 }));
  const endpoint = await addEndpoint(env, workspaceId, r.url);
  await emit(env, workspaceId, 'transfer.failed', { id: 2 });
  const [row] = await waitFor(async () => {
    const rows = await finishedDeliveries(env, endpoint.id);
    return rows.length === 1 ? rows : null;
  });
  expect(row).toMatchObject({ ok: 0, attempts: 3, statusCode: 503, error: 'HTTP 503' });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(r.requests).toHaveLength(3);
  expect(await env.db.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(1);
});

test('an attempt that exceeds WEBHOOK_TIMEOUT_MS is abandoned and retried', async () => {
  const r = await freshReceiver((_req, i) => (i === 0 ? 'hang' : { status: 200 }));
  const endpoint = await addEndpoint(env, workspaceId, r.url);
  await emit(env, workspaceId, 'transfer.completed', { id: 3 });
  const [row] = await waitFor(async () => {
    const rows = await finishedDeliveries(env, endpoint.id);
    return rows.length === 1 ? rows : null;
  });
  expect(row).toMatchObject({ ok: 1, attempts: 2, statusCode: 200, error: null });
  // The sender's timeout starts when it sends, a little before the receiver
  // sees the request, so the gap seen here can fall short of 800 + 500 by the
  // first request's transit time. Without the 500 ms retry delay it would be ~800.
  const gap = r.requests[1]!.receivedAt - r.requests[0]!.receivedAt;
  expect(gap).toBeGreaterThanOrEqual(TIMEOUT_MS + 450);
  expect(gap).toBeLessThan(TIMEOUT_MS + 1500);
});

test('timeouts and network errors end with statusCode null and the error text', async () => {
  const hanging = await freshReceiver(() => 'hang');
  const slow = await addEndpoint(env, workspaceId, hanging.url);
  const closed = await startHttpReceiver();
  await closed.close();
  const refusedPort = await addEndpoint(env, workspaceId, `${closed.url}/gone`);
  await emit(env, workspaceId, 'transfer.completed', { id: 4 });
  const rows = await waitFor(async () => {
    const done = await env.db.webhookDelivery.findMany({ where: { endpointId: { in: [slow.id, refusedPort.id] }, completedAt: { not: null } } });
    return done.length === 2 ? done : null;
  });
  const bySlow = rows.find((x) => x.endpointId === slow.id)!;
  const byClosed = rows.find((x) => x.endpointId === refusedPort.id)!;
  expect(hanging.requests).toHaveLength(3);
  expect(bySlow).toMatchObject({ ok: 0, attempts: 3, statusCode: null, error: `timed out after ${TIMEOUT_MS} ms` });
  expect(byClosed).toMatchObject({ ok: 0, attempts: 3, statusCode: null });
  expect(byClosed.error).toMatch(/ECONNREFUSED/);
});

test("each endpoint gets the events it subscribed to, and only its own workspace's", async () => {
  const r = await freshReceiver();
  const other = (await createWorkspace(env.db, { name: 'Other' })).id;
  const transfers = await addEndpoint(env, workspaceId, `${r.url}/transfers`, { events: ['transfer.completed'] });
  const everything = await addEndpoint(env, workspaceId, `${r.url}/all`, { events: ['*'] });
  const verifications = await addEndpoint(env, workspaceId, `${r.url}/verifications`, { events: ['verification.verified', 'verification.failed'] });
  await addEndpoint(env, workspaceId, `${r.url}/inactive`, { active: false });
  await addEndpoint(env, other, `${r.url}/other-workspace`);

  await emit(env, workspaceId, 'transfer.completed', { id: 10 });
  await emit(env, workspaceId, 'verification.verified', { reference: 'v' });
  await emit(env, workspaceId, 'collection.successful', { id: 11 });

  await waitFor(
    async () =>
      (await env.db.webhookDelivery.count({ where: { endpointId: { in: [transfers.id, everything.id, verifications.id] }, completedAt: { not: null } } })) ===
      5,
  );
  // Give a wrongly routed delivery time to show up.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const seen = r.requests.map((q) => `${q.path} ${q.headers['x-cowrie-event']}`).sort();
  expect(seen).toEqual([
    '/all collection.successful',
    '/all transfer.completed',
    '/all verification.verified',
    '/transfers transfer.completed',
    '/verifications verification.verified',
  ]);
  expect(await env.db.webhookDelivery.count({ where: { workspaceId: other } })).toBe(0);
});

test('an endpoint switched off after the event was relayed is not called: its delivery is logged failed, unsent, for a later recover', async () => {
  const r = await freshReceiver();
  const endpoint = await addEndpoint(env, workspaceId, r.url, { events: ['x.late'] });
  await worker.worker.pause();
  try {
    await emit(env, workspaceId, 'x.late', {});
    await waitFor(() => env.db.webhookDelivery.count({ where: { endpointId: endpoint.id } }));
    await env.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { active: false } });
  } finally {
    worker.worker.resume();
  }
  const logged = await waitFor(() => env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  expect(logged).toMatchObject({ ok: 0, attempts: 0, statusCode: null, error: NOT_SENT_ENDPOINT_INACTIVE, requestHeaders: null });
  expect(r.requests).toHaveLength(0);
});

// Risk: a receiver that was down loses events for good (no resend, no
// recover); a resend or recover that sends a new delivery id (receivers that
// de-duplicate would process it twice), or sends one delivery twice; a recover
// of thousands that floods the receiver or starves live deliveries; an
// endpoint failing for days that is never switched off, or is switched off
// silently, or cannot be switched back on; a log that cannot be paged or read
// in detail; any of it reaching another workspace's objects.
import { randomUUID } from 'node:crypto';
import { startHttpReceiver, waitFor, type HttpReceiver, type ReceivedRequest } from '@cowrie/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { ENDPOINT_DISABLED_EVENT, NOT_SENT_ENDPOINT_INACTIVE, verifyWebhookSignature } from '@cowrie/webhooks';
import { call, signInNewWorkspace, startTestGateway } from '@cowrie/gateway/testing';

const RECOVER_RATE = 100;
const HOUR_MS = 3600_000;

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
/** Paths the receiver answers 500 to ("down"). */
const down = new Set<string>();
/** How far the sender's clock runs ahead of the real one (the automatic-disable test moves it). */
let clockOffsetMs = 0;
let a: { workspaceId: number; token: string };
let b: { workspaceId: number; token: string };

beforeAll(async () => {
  gw = await startTestGateway({
    WEBHOOK_TEST_RATE_LIMIT: '1000',
    WEBHOOK_RECOVER_RATE_PER_SECOND: String(RECOVER_RATE),
    WEBHOOK_DISABLE_AFTER_SECONDS: '3600',
    WEBHOOK_DISABLE_MIN_FAILURES: '3',
    WEBHOOK_RELAY_POLL_MS: '20',
  });
  worker = await startWebhookWorker(gw.env.config, gw.env.logger, { now: () => new Date(Date.now() + clockOffsetMs) });
  receiver = await startHttpReceiver((req) => (down.has(req.path) ? { status: 500, body: 'receiver down for maintenance' } : { status: 200, body: 'ok' }));
  a = await signInNewWorkspace(gw, 'Operations A');
  b = await signInNewWorkspace(gw, 'Operations B');
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await gw?.close();
});

async function createEndpoint(path: string, events: string[], token = a.token) {
  const res = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${receiver.url}${path}`, events } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; secret: string };
}

/** What another module does: a state change and its event in one transaction (the outbox row as is, whatever its name and data). */
const emit = (workspaceId: number, event: string, payload: Record<string, unknown>) =>
  gw.env.db.$transaction((tx) => tx.outboxEvent.create({ data: { workspaceId, event, payload: payload as never } }));

const requestsTo = (path: string) => receiver.requests.filter((r) => r.path === path);
const bodyOf = (r: ReceivedRequest) => JSON.parse(r.rawBody.toString('utf8')) as { id: string; event: string; data: Record<string, unknown> };

test('a receiver down for the three tries, then up: resend delivers the same delivery id, signed, as a new log row', async () => {
  const endpoint = await createEndpoint('/resend', ['transfer.completed']);
  down.add('/resend');
  await emit(a.workspaceId, 'transfer.completed', { order: 1 });
  const failed = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  expect(failed).toMatchObject({ ok: 0, attempts: 3, statusCode: 500, dispatch: 0 });
  expect(requestsTo('/resend')).toHaveLength(3);

  // The single read shows what was sent and what came back; never the secret.
  const detail = await call(gw.url, 'GET', `/webhook-deliveries/${failed.id}`, { token: a.token });
  expect(detail.status).toBe(200);
  expect(detail.body.data).toMatchObject({
    id: Number(failed.id),
    deliveryId: failed.deliveryId,
    dispatch: 0,
    ok: 0,
    statusCode: 500,
    attempts: 3,
    error: 'HTTP 500',
    responseExcerpt: 'receiver down for maintenance',
    completedAt: expect.any(String),
  });
  expect(detail.body.data.requestHeaders).toMatchObject({
    'content-type': 'application/json',
    'x-cowrie-event': 'transfer.completed',
    'x-cowrie-delivery': failed.deliveryId,
    'x-cowrie-signature': requestsTo('/resend')[2]!.headers['x-cowrie-signature'],
  });
  expect(JSON.stringify(detail.body)).not.toContain(endpoint.secret);

  down.delete('/resend');
  const headers = { 'Idempotency-Key': `resend-${failed.id}` };
  const resent = await call(gw.url, 'POST', `/webhook-deliveries/${failed.id}/resend`, { token: a.token, headers });
  expect(resent.status).toBe(201);
  expect(resent.body.data).toMatchObject({
    deliveryId: failed.deliveryId,
    dispatch: 1,
    endpointId: endpoint.id,
    event: 'transfer.completed',
    completedAt: null,
  });
  expect(resent.body.data.id).not.toBe(Number(failed.id));
  // A retry with the same key answers the same and sends nothing more.
  const retried = await call(gw.url, 'POST', `/webhook-deliveries/${failed.id}/resend`, { token: a.token, headers });
  expect(retried.body.data).toEqual(resent.body.data);

  await waitFor(() => requestsTo('/resend').length === 4);
  const arrived = requestsTo('/resend')[3]!;
  expect(arrived.headers['x-cowrie-delivery']).toBe(failed.deliveryId);
  expect(bodyOf(arrived).id).toBe(failed.deliveryId);
  expect(arrived.rawBody.equals(requestsTo('/resend')[0]!.rawBody)).toBe(true);
  expect(verifyWebhookSignature({ rawBody: arrived.rawBody, header: arrived.headers['x-cowrie-signature'] as string, secret: endpoint.secret })).toBe(true);

  const rows = await waitFor(async () => {
    const log = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}`, { token: a.token });
    return log.body.data.length === 2 && log.body.data;
  });
  expect(rows.map((r: { dispatch: number; ok: number; deliveryId: string }) => [r.dispatch, r.ok, r.deliveryId])).toEqual([
    [1, 1, failed.deliveryId],
    [0, 0, failed.deliveryId],
  ]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(requestsTo('/resend')).toHaveLength(4);
});

test('resend is refused while the delivery is still being sent, and when its endpoint is switched off', async () => {
  const endpoint = await createEndpoint('/refused', ['transfer.completed']);
  await emit(a.workspaceId, 'transfer.completed', { order: 2 });
  const first = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  // A later dispatch still pending (as while a resend is in flight).
  await gw.env.db.webhookDelivery.create({
    data: {
      deliveryId: first.deliveryId,
      dispatch: 1,
      workspaceId: a.workspaceId,
      endpointId: endpoint.id,
      event: first.event,
      payload: first.payload as never,
    },
  });
  const pending = await call(gw.url, 'POST', `/webhook-deliveries/${first.id}/resend`, { token: a.token });
  expect(pending.status).toBe(400);
  expect(pending.body.error).toMatchObject({ code: 'invalid_request', message: 'This delivery is still being sent; wait for its outcome' });

  await call(gw.url, 'PUT', `/webhook-endpoints/${endpoint.id}`, { token: a.token, body: { active: false } });
  const inactive = await call(gw.url, 'POST', `/webhook-deliveries/${first.id}/resend`, { token: a.token });
  expect(inactive.status).toBe(400);
  expect(inactive.body.error.message).toMatch(/switched off/);
  const recover = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: a.token, body: { since: new Date(0).toISOString() } });
  expect(recover.status).toBe(400);
});

test('recover of 500 failed deliveries arrives paced and complete while live events keep flowing', async () => {
  const endpoint = await createEndpoint('/recover', ['transfer.completed']);
  await createEndpoint('/live', ['transfer.failed']);
  // The state an hour-long outage leaves: 500 events whose deliveries all failed.
  const failedAt = new Date(Date.now() - HOUR_MS);
  const count = 500;
  const events = await gw.env.db.outboxEvent.createManyAndReturn({
    data: Array.from({ length: count }, (_, i) => ({
      workspaceId: a.workspaceId,
      event: 'transfer.completed',
      payload: { order: i },
      createdAt: failedAt,
      relayedAt: failedAt,
    })),
    select: { id: true },
  });
  const deliveryIds = events.map(() => randomUUID());
  await gw.env.db.webhookDelivery.createMany({
    data: events.map((e, i) => ({
      deliveryId: deliveryIds[i]!,
      workspaceId: a.workspaceId,
      endpointId: endpoint.id,
      outboxEventId: e.id,
      event: 'transfer.completed',
      payload: { id: deliveryIds[i], event: 'transfer.completed', created_at: failedAt.toISOString(), data: { order: i }, livemode: true },
      ok: 0,
      attempts: 3,
      statusCode: 503,
      error: 'HTTP 503',
      createdAt: new Date(failedAt.getTime() + i),
      completedAt: new Date(failedAt.getTime() + i + 2000),
    })),
  });
  // One that succeeded in between, and one from before `since`: neither is sent again.
  await emit(a.workspaceId, 'transfer.completed', { order: 'fine' });
  const olderId = randomUUID();
  const older = await gw.env.db.outboxEvent.create({ data: { workspaceId: a.workspaceId, event: 'transfer.completed', payload: {}, relayedAt: failedAt } });
  await gw.env.db.webhookDelivery.create({
    data: {
      deliveryId: olderId,
      workspaceId: a.workspaceId,
      endpointId: endpoint.id,
      outboxEventId: older.id,
      event: 'transfer.completed',
      payload: { id: olderId, event: 'transfer.completed', created_at: failedAt.toISOString(), data: {}, livemode: true },
      attempts: 3,
      error: 'HTTP 503',
      createdAt: new Date(failedAt.getTime() - 5000),
      completedAt: failedAt,
    },
  });
  await waitFor(() => requestsTo('/recover').length === 1);

  const headers = { 'Idempotency-Key': `recover-${endpoint.id}` };
  const since = new Date(failedAt.getTime() - 1000).toISOString();
  const started = Date.now();
  const res = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: a.token, body: { since }, headers });
  expect(res.status).toBe(202);
  expect(res.body.data).toEqual({ endpoint_id: endpoint.id, since, queued: count, has_more: false });
  expect((await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: a.token, body: { since }, headers })).body.data).toEqual(
    res.body.data,
  );
  // Without the key, a second recover finds every one of them already on its way.
  const again = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: a.token, body: { since } });
  expect(again.body.data).toMatchObject({ queued: 0, has_more: false });

  // Live events emitted during the recover (one every 100 ms, each timed on
  // its own, so a slow machine does not stretch the series past the recover's
  // five seconds) arrive promptly, not behind it.
  const liveLatencies = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 100));
      const emittedAt = Date.now();
      await emit(a.workspaceId, 'transfer.failed', { order: i });
      await waitFor(() => requestsTo('/live').some((r) => bodyOf(r).data.order === i), 5000, 5);
      return Date.now() - emittedAt;
    }),
  );
  // Not behind it: every live event arrived while the recover still had
  // deliveries to send (checked again below against the recover's last
  // delivery), each inside the recover's own span (500 at 100/s: five
  // seconds). Not a latency target: CI on a busy two-core machine has taken
  // 2.7 s for a live delivery, which is still ahead of the backlog.
  expect(requestsTo('/recover').length - 1).toBeLessThan(count);
  expect(Math.max(...liveLatencies)).toBeLessThan((count * 1000) / RECOVER_RATE);

  // Complete, however long a loaded machine takes: a job whose lock lapsed while
  // the machine was starved comes back only after BullMQ's stalled check (30 s).
  const deliveryIdOf = (r: ReceivedRequest) => r.headers['x-cowrie-delivery'] as string;
  await waitFor(() => new Set(requestsTo('/recover').slice(1).map(deliveryIdOf)).size === count, 90_000, 50);
  const recovered = requestsTo('/recover').slice(1);
  expect(recovered.map((r) => bodyOf(r).id)).toEqual(recovered.map((r) => r.headers['x-cowrie-delivery']));
  expect(new Set(recovered.map((r) => bodyOf(r).id))).toEqual(new Set(deliveryIds));
  // Paced: 500 at 100/s take at least about 5 s, and no 2 s holds more than
  // twice its 200 (a stalled sender sends the slots that came due meanwhile
  // together: 302 were seen on a loaded CI machine). Unpaced, all 500 would
  // land within a second or two, and both bounds fail.
  // Every live event was received before the recover's last delivery: not queued behind it.
  const lastLive = Math.max(...requestsTo('/live').map((r) => r.receivedAt));
  expect(lastLive).toBeLessThan(recovered.at(-1)!.receivedAt);
  const spanMs = recovered.at(-1)!.receivedAt - recovered[0]!.receivedAt;
  expect(spanMs).toBeGreaterThanOrEqual(((count - 1) * 1000) / RECOVER_RATE - 500);
  const busiest = Math.max(...recovered.map((r) => recovered.filter((o) => o.receivedAt >= r.receivedAt && o.receivedAt < r.receivedAt + 2000).length));
  expect(busiest).toBeLessThanOrEqual(RECOVER_RATE * 2 * 2);
  expect(Date.now() - started).toBeGreaterThanOrEqual(spanMs);
  // Each log row: one new dispatch per delivery, all delivered.
  await waitFor(async () => (await gw.env.db.webhookDelivery.count({ where: { endpointId: endpoint.id, dispatch: 1, ok: 1 } })) === count, 10_000);
  expect(await gw.env.db.webhookDelivery.count({ where: { endpointId: endpoint.id, dispatch: { gt: 1 } } })).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Sent once each, unless an attempt timed out on a starved machine after the
  // receiver had it: then the next attempt of the same dispatch (same delivery
  // id, counted in its row's attempts) sends it again. A copy beyond its row's
  // attempts would be a dispatch sent twice.
  const attemptsOf = new Map(
    (await gw.env.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id, dispatch: 1 }, select: { deliveryId: true, attempts: true } })).map((row) => [
      row.deliveryId,
      row.attempts,
    ]),
  );
  const copies = new Map<string, number>();
  for (const r of requestsTo('/recover').slice(1)) copies.set(deliveryIdOf(r), (copies.get(deliveryIdOf(r)) ?? 0) + 1);
  expect([...copies].filter(([deliveryId, sent]) => sent > (attemptsOf.get(deliveryId) ?? 0))).toEqual([]);
}, 150_000);

test('the delivery log pages with a cursor and filters by endpoint, event, outcome and time', async () => {
  const endpoint = await createEndpoint('/log', ['*']);
  const t0 = Date.UTC(2026, 0, 1);
  const rows = [
    { event: 'transfer.completed', ok: 1, at: t0 },
    { event: 'transfer.completed', ok: 0, at: t0 + 1000 },
    { event: 'transfer.failed', ok: 1, at: t0 + 2000 },
    { event: 'transfer.completed', ok: 1, at: t0 + 3000 },
    { event: 'transfer.failed', ok: 0, at: t0 + 4000 },
  ];
  for (const row of rows) {
    const deliveryId = randomUUID();
    await gw.env.db.webhookDelivery.create({
      data: {
        deliveryId,
        workspaceId: a.workspaceId,
        endpointId: endpoint.id,
        event: row.event,
        payload: { id: deliveryId, event: row.event, created_at: new Date(row.at).toISOString(), data: {}, livemode: true },
        ok: row.ok,
        attempts: 1,
        statusCode: row.ok ? 200 : 500,
        createdAt: new Date(row.at),
        completedAt: new Date(row.at + 10),
      },
    });
  }
  const list = (query: string) => call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}&${query}`, { token: a.token });
  const times = (data: Array<{ createdAt: string }>) => data.map((r) => Date.parse(r.createdAt) - t0);

  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    seen.push(...times(page.body.data));
    cursor = page.body.meta.next_cursor;
    pages += 1;
  } while (cursor);
  expect(seen).toEqual([4000, 3000, 2000, 1000, 0]);
  expect(pages).toBe(3);

  expect(times((await list('event=transfer.completed')).body.data)).toEqual([3000, 1000, 0]);
  expect(times((await list('ok=false')).body.data)).toEqual([4000, 1000]);
  expect(times((await list('ok=true&event=transfer.failed')).body.data)).toEqual([2000]);
  const from = new Date(t0 + 1000).toISOString();
  const to = new Date(t0 + 3000).toISOString();
  expect(times((await list(`from=${from}&to=${to}`)).body.data)).toEqual([2000, 1000]);
  expect((await list('event=nothing.here')).body).toMatchObject({ data: [], meta: { next_cursor: null } });

  for (const bad of ['cursor=abc', 'cursor=-1', 'ok=maybe', 'from=yesterday', 'to=2026-13-01T00:00:00Z', 'from=0000-01-01T00:00:00Z']) {
    const res = await list(bad);
    expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_request']);
  }
  // The API's list stays as it was: a plain array under data.
  const plain = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}&limit=1`, { token: a.token });
  expect(plain.body.data).toHaveLength(1);
});

test('a delivery never sent (its endpoint switched off before its turn) is no dispatch: the log leaves it out, and a recover once the endpoint is on again sends it', async () => {
  const endpoint = await createEndpoint('/not-sent', ['transfer.completed']);
  await emit(a.workspaceId, 'transfer.completed', { order: 'sent' });
  const sent = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  // What the sender leaves when the endpoint was switched off between the relay and the send.
  const event = await gw.env.db.outboxEvent.create({
    data: { workspaceId: a.workspaceId, event: 'transfer.completed', payload: { order: 'not sent' }, relayedAt: new Date() },
  });
  const deliveryId = randomUUID();
  const notSent = await gw.env.db.webhookDelivery.create({
    data: {
      deliveryId,
      workspaceId: a.workspaceId,
      endpointId: endpoint.id,
      outboxEventId: event.id,
      event: 'transfer.completed',
      payload: { id: deliveryId, event: 'transfer.completed', created_at: new Date().toISOString(), data: { order: 'not sent' }, livemode: true },
      ok: 0,
      attempts: 0,
      statusCode: null,
      error: NOT_SENT_ENDPOINT_INACTIVE,
      completedAt: new Date(),
    },
  });
  const log = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}`, { token: a.token });
  expect(log.status).toBe(200);
  // Every row of the log is a dispatch: attempts 1 to 3.
  expect(log.body.data.map((r: { id: number; attempts: number }) => [r.id, r.attempts])).toEqual([[Number(sent.id), 1]]);
  expect((await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}&ok=false`, { token: a.token })).body.data).toEqual([]);

  const recover = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, {
    token: a.token,
    body: { since: new Date(Date.now() - HOUR_MS).toISOString() },
  });
  expect(recover.status).toBe(202);
  expect(recover.body.data).toMatchObject({ queued: 1, has_more: false });
  const arrived = await waitFor(() => requestsTo('/not-sent').find((r) => bodyOf(r).id === deliveryId));
  expect(bodyOf(arrived).data).toEqual({ order: 'not sent' });
  const redelivered = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { deliveryId, dispatch: 1, completedAt: { not: null } } }));
  expect(redelivered).toMatchObject({ ok: 1, attempts: 1 });
  const after = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}`, { token: a.token });
  expect(after.body.data.map((r: { id: number }) => r.id)).toEqual([Number(redelivered.id), Number(sent.id)]);
  expect(after.body.data.map((r: { id: number }) => r.id)).not.toContain(Number(notSent.id));
});

test('a user of workspace B gets not_found or an empty list for every webhook object of A; bad ids and bodies are 4xx', async () => {
  const endpoint = await createEndpoint('/matrix', ['transfer.completed']);
  await emit(a.workspaceId, 'transfer.completed', { order: 'matrix' });
  const row = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  const since = new Date(0).toISOString();

  const asB = [
    await call(gw.url, 'GET', `/webhook-deliveries/${row.id}`, { token: b.token }),
    await call(gw.url, 'POST', `/webhook-deliveries/${row.id}/resend`, { token: b.token }),
    await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: b.token, body: { since } }),
    await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/roll-secret`, { token: b.token, body: {} }),
    await call(gw.url, 'PUT', `/webhook-endpoints/${endpoint.id}`, { token: b.token, body: { active: true } }),
  ];
  expect(asB.map((r) => [r.status, r.body.error.code])).toEqual(Array.from({ length: asB.length }, () => [404, 'not_found']));
  const listedByB = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${endpoint.id}`, { token: b.token });
  expect(listedByB.body.data).toEqual([]);
  expect((await call(gw.url, 'GET', '/webhook-endpoints', { token: b.token })).body.data.map((e: { id: number }) => e.id)).not.toContain(endpoint.id);

  for (const id of ['abc', '0', '-1', '99999999999999999999', '1.5']) {
    const res = await call(gw.url, 'GET', `/webhook-deliveries/${id}`, { token: a.token });
    expect([id, res.status]).toEqual([id, 404]);
  }
  for (const body of [{}, { since: 'yesterday' }, { since: 5 }, { since: '0000-01-01T00:00:00Z' }, { since: new Date(Date.now() + HOUR_MS).toISOString() }]) {
    const res = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/recover`, { token: a.token, body });
    expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
  }
  // API keys do not reach the management routes.
  const withKey = await call(gw.url, 'POST', `/webhook-deliveries/${row.id}/resend`, { token: 'ck_live_not_a_session' });
  expect(withKey.status).toBe(401);
});

// Last: it moves the sender's clock.
test('an endpoint whose every delivery failed for the span is switched off, the workspace told; PUT active: true enables it again, and a recover sends what it missed', async () => {
  const failing = await createEndpoint('/failing', ['transfer.completed']);
  const watcher = await createEndpoint('/watcher', [ENDPOINT_DISABLED_EVENT]);
  down.add('/failing');
  const finished = () => gw.env.db.webhookDelivery.count({ where: { endpointId: failing.id, completedAt: { not: null } } });

  // Three failures now: enough of them, but not for long enough.
  await Promise.all([1, 2, 3].map((order) => emit(a.workspaceId, 'transfer.completed', { order })));
  await waitFor(async () => (await finished()) === 3);
  const endpointRow = () => gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: failing.id } });
  expect(await endpointRow()).toMatchObject({ active: true, failureStreak: 3, disabledReason: null });
  const failingSince = (await endpointRow()).failingSince!;

  // Two hours later by the sender's clock, one more failure: switched off.
  clockOffsetMs = 2 * HOUR_MS;
  try {
    await emit(a.workspaceId, 'transfer.completed', { order: 4 });
    await waitFor(async () => (await finished()) === 4);
  } finally {
    clockOffsetMs = 0;
  }
  const listed = (await call(gw.url, 'GET', '/webhook-endpoints', { token: a.token })).body.data.find((e: { id: number }) => e.id === failing.id);
  expect(listed).toMatchObject({
    active: false,
    disabled_reason: expect.stringMatching(/^Every delivery failed since .* UTC \(4 failures\); switched off automatically$/),
  });
  expect(Date.parse(listed.disabled_at) - Date.now()).toBeGreaterThan(HOUR_MS);

  // The workspace's other endpoint is told; the switched-off one gets nothing more.
  const told = await waitFor(() => requestsTo('/watcher')[0]);
  expect(bodyOf(told)).toMatchObject({
    event: ENDPOINT_DISABLED_EVENT,
    data: { endpoint_id: failing.id, url: `${receiver.url}/failing`, reason: listed.disabled_reason, failures: 4, failing_since: failingSince.toISOString() },
  });
  // Signed with the watcher's secret (its time may be the moved clock's).
  expect(
    verifyWebhookSignature({ rawBody: told.rawBody, header: told.headers['x-cowrie-signature'] as string, secret: watcher.secret, toleranceSeconds: 3 * 3600 }),
  ).toBe(true);
  const sentBefore = requestsTo('/failing').length;
  // Events while it is off are kept for it, failed and unsent (attempts 0), so a recover can send them; none is sent now.
  const missed = [5, 6, 7, 8, 9, 10];
  await Promise.all(missed.map((order) => emit(a.workspaceId, 'transfer.completed', { order })));
  const unsent = await waitFor(async () => {
    const rows = await gw.env.db.webhookDelivery.findMany({ where: { endpointId: failing.id, attempts: 0 } });
    return rows.length === missed.length ? rows : null;
  });
  expect(unsent.every((r) => r.ok === 0 && r.completedAt !== null && r.error === NOT_SENT_ENDPOINT_INACTIVE)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(requestsTo('/failing')).toHaveLength(sentBefore);
  // The log lists dispatches only: the four that were tried and failed.
  const failedLog = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${failing.id}&ok=false`, { token: a.token });
  expect(failedLog.body.data.map((r: { attempts: number }) => r.attempts)).toEqual([3, 3, 3, 3]);

  // Enabled again: the reason goes, the run of failures starts over, and nothing missed is sent until a recover asks.
  down.delete('/failing');
  const enabled = await call(gw.url, 'PUT', `/webhook-endpoints/${failing.id}`, { token: a.token, body: { active: true } });
  expect(enabled.body.data).toMatchObject({ active: true, disabled_reason: null, disabled_at: null });
  expect(await endpointRow()).toMatchObject({ failureStreak: 0, failingSince: null });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(requestsTo('/failing')).toHaveLength(sentBefore);
  const recovered = await call(gw.url, 'POST', `/webhook-endpoints/${failing.id}/recover`, {
    token: a.token,
    body: { since: new Date(Date.now() - HOUR_MS).toISOString() },
  });
  expect(recovered.body.data).toMatchObject({ queued: 4 + missed.length, has_more: false });
  await waitFor(() => requestsTo('/failing').filter((r) => r.receivedAt > told.receivedAt).length === 4 + missed.length, 10_000);
  const redelivered = requestsTo('/failing')
    .filter((r) => r.receivedAt > told.receivedAt)
    .map((r) => bodyOf(r).data.order as number);
  expect(redelivered.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, ...missed]);
  // Each once: the unsent rows' delivery ids, sent as their first real dispatch.
  const unsentIds = new Set(unsent.map((r) => r.deliveryId));
  expect(requestsTo('/failing').filter((r) => unsentIds.has(r.headers['x-cowrie-delivery'] as string))).toHaveLength(missed.length);
}, 30_000);

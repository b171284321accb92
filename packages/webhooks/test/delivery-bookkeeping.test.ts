// Risk: a delivery given a second final outcome (the contract: one outcome,
// never redelivered once logged), or one outcome of a batch stored on another row.
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { randomUUID } from 'node:crypto';
import { createDeliveryStore, ENDPOINT_DISABLED_EVENT, type StoredWebhookOutcome } from '../src/delivery-bookkeeping';

let env: TestEnv;
let workspaceId: number;
let endpointId: number;

beforeAll(async () => {
  env = await createTestEnv();
  workspaceId = (await createWorkspaceWithKey(env.db)).workspace.id;
  endpointId = (await env.db.webhookEndpoint.create({ data: { workspaceId, url: 'https://example.com/hook', events: ['*'], secretEncrypted: 'x' } })).id;
});
afterAll(() => env.cleanup());

const pending = (toEndpoint = endpointId) =>
  env.db.webhookDelivery.create({ data: { deliveryId: randomUUID(), workspaceId, endpointId: toEndpoint, event: 'transfer.completed', payload: { id: 'x' } } });

// Nothing here reaches the automatic disable unless a test asks for it.
const neverDisable = { afterSeconds: 10 ** 9, minFailures: 10 ** 6 };

const outcome = (fields: Omit<StoredWebhookOutcome, 'requestHeaders' | 'responseExcerpt'>): StoredWebhookOutcome => ({
  ...fields,
  requestHeaders: { 'x-cowrie-delivery': 'd' },
  responseExcerpt: fields.ok ? 'thanks' : 'down',
});

test('outcomes stored together land on their own rows; a second outcome for a row is refused and changes nothing', async () => {
  const store = createDeliveryStore(env.sql, neverDisable);
  const [a, b] = [await pending(), await pending()];
  const completedAt = new Date(Date.UTC(2026, 10, 22, 12));
  expect(
    await Promise.all([
      store.complete(outcome({ id: a.id, ok: true, statusCode: 200, attempts: 1, error: null, completedAt })),
      store.complete(outcome({ id: b.id, ok: false, statusCode: 500, attempts: 3, error: 'HTTP 500', completedAt })),
    ]),
  ).toEqual([true, true]);
  expect(await store.complete(outcome({ id: a.id, ok: false, statusCode: 503, attempts: 3, error: 'HTTP 503', completedAt: new Date() }))).toBe(false);
  expect(await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({
    ok: 1,
    statusCode: 200,
    attempts: 1,
    error: null,
    completedAt,
    requestHeaders: { 'x-cowrie-delivery': 'd' },
    responseExcerpt: 'thanks',
  });
  expect(await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: b.id } })).toMatchObject({
    ok: 0,
    statusCode: 500,
    attempts: 3,
    error: 'HTTP 500',
    completedAt,
  });
  const found = await store.find({ deliveryId: a.deliveryId, dispatch: 0 });
  expect(found?.completedAt).toEqual(completedAt);
});

test('an outcome Postgres refuses fails alone; the others of its batch are stored', async () => {
  const store = createDeliveryStore(env.sql, neverDisable);
  const [a, b] = [await pending(), await pending()];
  const [good, bad] = await Promise.allSettled([
    store.complete(outcome({ id: a.id, ok: true, statusCode: 200, attempts: 1, error: null, completedAt: new Date() })),
    // Out of the column's range: the statement the batch shares is refused.
    store.complete(outcome({ id: b.id, ok: false, statusCode: 2 ** 31, attempts: 1, error: 'x', completedAt: new Date() })),
  ]);
  expect(good).toEqual({ status: 'fulfilled', value: true });
  expect(bad.status).toBe('rejected');
  expect((await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: a.id } })).completedAt).toBeInstanceOf(Date);
  expect((await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: b.id } })).completedAt).toBeNull();
});

const HOUR = 3600_000;

async function newEndpoint() {
  return env.db.webhookEndpoint.create({ data: { workspaceId, url: 'https://example.com/failing', events: ['*'], secretEncrypted: 'x' } });
}

/** Completes `n` new deliveries to the endpoint at `at`, each ok or not, as one batch. */
async function completeBatch(store: ReturnType<typeof createDeliveryStore>, toEndpoint: number, results: Array<{ ok: boolean; at: Date }>) {
  const rows = await Promise.all(results.map(() => pending(toEndpoint)));
  await Promise.all(
    rows.map((row, i) =>
      store.complete(
        outcome({ id: row.id, ok: results[i]!.ok, statusCode: results[i]!.ok ? 200 : 500, attempts: 3, error: null, completedAt: results[i]!.at }),
      ),
    ),
  );
}

test("an endpoint's run of failures starts with its first failure, grows with each, and a success ends it", async () => {
  const store = createDeliveryStore(env.sql, neverDisable);
  const endpoint = await newEndpoint();
  const t0 = new Date(Date.UTC(2026, 10, 1, 12));
  const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);
  const health = () =>
    env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id }, select: { failingSince: true, failureStreak: true, active: true } });

  await completeBatch(store, endpoint.id, [{ ok: false, at: at(0) }]);
  expect(await health()).toEqual({ failingSince: at(0), failureStreak: 1, active: true });
  await completeBatch(store, endpoint.id, [
    { ok: false, at: at(1) },
    { ok: false, at: at(2) },
  ]);
  expect(await health()).toEqual({ failingSince: at(0), failureStreak: 3, active: true });
  // Within one batch: the failures after its last success are the new run.
  await completeBatch(store, endpoint.id, [
    { ok: false, at: at(3) },
    { ok: true, at: at(4) },
    { ok: false, at: at(5) },
  ]);
  expect(await health()).toEqual({ failingSince: at(5), failureStreak: 1, active: true });
  await completeBatch(store, endpoint.id, [{ ok: true, at: at(6) }]);
  expect(await health()).toEqual({ failingSince: null, failureStreak: 0, active: true });
  // An outcome stored twice counts once.
  const [row] = [await pending(endpoint.id)];
  const failed = outcome({ id: row.id, ok: false, statusCode: 500, attempts: 3, error: 'HTTP 500', completedAt: at(7) });
  expect(await store.complete(failed)).toBe(true);
  expect(await store.complete(failed)).toBe(false);
  expect(await health()).toEqual({ failingSince: at(7), failureStreak: 1, active: true });
});

test('an endpoint whose every dispatch failed for the span, at least the minimum times, is switched off with its reason, and the workspace is told', async () => {
  const store = createDeliveryStore(env.sql, { afterSeconds: 5 * 24 * 3600, minFailures: 4 });
  const endpoint = await newEndpoint();
  const t0 = new Date(Date.UTC(2026, 10, 2, 8));
  const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);
  const eventsBefore = await env.db.outboxEvent.count({ where: { workspaceId, event: ENDPOINT_DISABLED_EVENT } });

  // Five days of failures, but only three of them: not yet.
  await completeBatch(store, endpoint.id, [
    { ok: false, at: at(0) },
    { ok: false, at: at(60) },
    { ok: false, at: at(120) },
  ]);
  expect(await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ active: true, disabledReason: null });
  // A fourth failure, still inside the span: not yet.
  await completeBatch(store, endpoint.id, [{ ok: false, at: at(119) }]);
  expect((await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).active).toBe(true);
  // Past the span with enough failures: switched off.
  await completeBatch(store, endpoint.id, [{ ok: false, at: at(121) }]);
  const disabled = await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
  expect(disabled).toMatchObject({ active: false, disabledAt: at(121), failingSince: at(0), failureStreak: 5 });
  expect(disabled.disabledReason).toBe('Every delivery failed since 2026-11-02 08:00 UTC (5 failures); switched off automatically');
  const events = await env.db.outboxEvent.findMany({ where: { workspaceId, event: ENDPOINT_DISABLED_EVENT }, orderBy: { id: 'asc' } });
  expect(events).toHaveLength(eventsBefore + 1);
  expect(events.at(-1)!.payload).toEqual({
    endpoint_id: endpoint.id,
    url: 'https://example.com/failing',
    reason: disabled.disabledReason,
    failing_since: at(0).toISOString(),
    failures: 5,
    disabled_at: at(121).toISOString(),
  });
  // Further failures of the switched-off endpoint do not tell the workspace again.
  await completeBatch(store, endpoint.id, [{ ok: false, at: at(122) }]);
  expect(await env.db.outboxEvent.count({ where: { workspaceId, event: ENDPOINT_DISABLED_EVENT } })).toBe(eventsBefore + 1);
});

// Risk: a delivery given a second final outcome (the interface: one outcome,
// never redelivered once logged), or one outcome of a batch stored on another row.
import { createTestEnv, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { randomUUID } from 'node:crypto';
import { createDeliveryStore } from './delivery-store';

let env: TestEnv;
let workspaceId: number;
let endpointId: number;

beforeAll(async () => {
  env = await createTestEnv();
  workspaceId = (await createWorkspaceWithKey(env.db)).workspace.id;
  endpointId = (await env.db.webhookEndpoint.create({ data: { workspaceId, url: 'https://example.com/hook', events: ['*'], secretEncrypted: 'x' } })).id;
});
afterAll(() => env.cleanup());

const pending = () =>
  env.db.webhookDelivery.create({ data: { deliveryId: randomUUID(), workspaceId, endpointId, event: 'transfer.completed', payload: { id: 'x' } } });

test('outcomes stored together land on their own rows; a second outcome for a row is refused and changes nothing', async () => {
  const store = createDeliveryStore(env.sql);
  const [a, b] = [await pending(), await pending()];
  const completedAt = new Date(Date.UTC(2026, 10, 22, 12));
  expect(
    await Promise.all([
      store.complete({ id: a.id, ok: true, statusCode: 200, attempts: 1, error: null, completedAt }),
      store.complete({ id: b.id, ok: false, statusCode: 500, attempts: 3, error: 'HTTP 500', completedAt }),
    ]),
  ).toEqual([true, true]);
  expect(await store.complete({ id: a.id, ok: false, statusCode: 503, attempts: 3, error: 'HTTP 503', completedAt: new Date() })).toBe(false);
  expect(await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({
    ok: 1,
    statusCode: 200,
    attempts: 1,
    error: null,
    completedAt,
  });
  expect(await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: b.id } })).toMatchObject({
    ok: 0,
    statusCode: 500,
    attempts: 3,
    error: 'HTTP 500',
    completedAt,
  });
  const found = await store.find(a.deliveryId);
  expect(found?.completedAt).toEqual(completedAt);
});

test('an outcome Postgres refuses fails alone; the others of its batch are stored', async () => {
  const store = createDeliveryStore(env.sql);
  const [a, b] = [await pending(), await pending()];
  const [good, bad] = await Promise.allSettled([
    store.complete({ id: a.id, ok: true, statusCode: 200, attempts: 1, error: null, completedAt: new Date() }),
    // Out of the column's range: the statement the batch shares is refused.
    store.complete({ id: b.id, ok: false, statusCode: 2 ** 31, attempts: 1, error: 'x', completedAt: new Date() }),
  ]);
  expect(good).toEqual({ status: 'fulfilled', value: true });
  expect(bad.status).toBe('rejected');
  expect((await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: a.id } })).completedAt).toBeInstanceOf(Date);
  expect((await env.db.webhookDelivery.findUniqueOrThrow({ where: { id: b.id } })).completedAt).toBeNull();
});

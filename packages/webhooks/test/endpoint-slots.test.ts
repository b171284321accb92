// Risk: an endpoint's in-flight limit that lets one more through under
// concurrency, that a sender killed mid-send holds forever, that a job run
// again after its sender died cannot get back into, or whose keys land outside
// REDIS_KEY_PREFIX (shared Redis) or live on after their last lease.
import type { TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createEndpointSlots, webhookSlotLeaseMs } from '../src/endpoint-slots';
import { WEBHOOK_RETRY_DELAYS_MS } from '../src/send-delivery';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

let nextEndpoint = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const slotsOf = (leaseMs?: number) =>
  createEndpointSlots(env.redis, { keyPrefix: env.config.REDIS_KEY_PREFIX, perEndpoint: 2, attemptTimeoutMs: 10_000, leaseMs });

test('at most perEndpoint holders at once, however many ask together; each endpoint counts its own', async () => {
  const slots = slotsOf();
  const endpoint = nextEndpoint++;
  const other = nextEndpoint++;
  const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => slots.take(endpoint, `job-${i}`)));
  expect(taken.filter(Boolean)).toHaveLength(2);
  expect(await slots.take(other, 'job-elsewhere')).not.toBeNull();
  // The keys are the service's own, under its prefix: one per endpoint.
  expect((await env.redis.keys(`${env.config.REDIS_KEY_PREFIX}webhook-in-flight:*`)).sort()).toEqual(
    [`${env.config.REDIS_KEY_PREFIX}webhook-in-flight:${endpoint}`, `${env.config.REDIS_KEY_PREFIX}webhook-in-flight:${other}`].sort(),
  );

  // A released slot is free for the next one.
  await taken.find(Boolean)!.release();
  expect(await slots.take(endpoint, 'job-next')).not.toBeNull();
  expect(await slots.take(endpoint, 'job-one-too-many')).toBeNull();
});

test('a holder that already has a slot (its job run again after its sender died) gets it back without taking a second', async () => {
  const slots = slotsOf();
  const endpoint = nextEndpoint++;
  expect(await slots.take(endpoint, 'job-a')).not.toBeNull();
  expect(await slots.take(endpoint, 'job-b')).not.toBeNull();
  expect(await slots.take(endpoint, 'job-a')).not.toBeNull();
  expect(await env.redis.zcard(`${env.config.REDIS_KEY_PREFIX}webhook-in-flight:${endpoint}`)).toBe(2);
  expect(await slots.take(endpoint, 'job-c')).toBeNull();
});

test('slots of a holder that never comes back lapse with their lease, and the key with the last of them', async () => {
  const slots = slotsOf(300);
  const endpoint = nextEndpoint++;
  const key = `${env.config.REDIS_KEY_PREFIX}webhook-in-flight:${endpoint}`;
  expect(await slots.take(endpoint, 'dead-1')).not.toBeNull();
  expect(await slots.take(endpoint, 'dead-2')).not.toBeNull();
  expect(await slots.take(endpoint, 'waiting')).toBeNull();
  expect(await env.redis.pttl(key)).toBeGreaterThan(0);
  expect(await env.redis.pttl(key)).toBeLessThanOrEqual(300);
  await sleep(400);
  expect(await env.redis.exists(key)).toBe(0);
  const slot = await slots.take(endpoint, 'waiting');
  expect(slot).not.toBeNull();
  await slot!.release();
});

test('renew gives a held slot a new lease from now: a holder still sending is not counted out', async () => {
  const slots = slotsOf(400);
  const endpoint = nextEndpoint++;
  const a = (await slots.take(endpoint, 'job-a'))!;
  const b = (await slots.take(endpoint, 'job-b'))!;
  await sleep(250);
  await a.renew();
  await sleep(250);
  // b's lease ended, a's was renewed: one slot is free, not two.
  expect(await slots.take(endpoint, 'job-c')).not.toBeNull();
  expect(await slots.take(endpoint, 'job-d')).toBeNull();
  await b.release();
});

test('the lease covers one attempt and the longest wait before the next, with a margin', () => {
  expect(webhookSlotLeaseMs(10_000)).toBeGreaterThan(10_000 + Math.max(...WEBHOOK_RETRY_DELAYS_MS));
  expect(webhookSlotLeaseMs(10_000)).toBeLessThan(3 * 10_000);
  expect(slotsOf().leaseMs).toBe(webhookSlotLeaseMs(10_000));
});

test('a dispatch put back waits 250 ms, doubling each time it was put back before, up to one attempt timeout; jittered to half of it', () => {
  const slots = slotsOf();
  const top = () => 0.999_999;
  const bottom = () => 0;
  expect([0, 1, 2, 3, 5, 6, 50].map((n) => slots.deferMs(n, top))).toEqual([250, 500, 1000, 2000, 8000, 10_000, 10_000]);
  expect([0, 1, 6].map((n) => slots.deferMs(n, bottom))).toEqual([125, 250, 5000]);
  const fast = createEndpointSlots(env.redis, { keyPrefix: env.config.REDIS_KEY_PREFIX, perEndpoint: 2, attemptTimeoutMs: 100 });
  expect(fast.deferMs(0, top)).toBe(250);
});

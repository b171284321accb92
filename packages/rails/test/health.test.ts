// Risk: the rail breaker never opens (payouts keep hitting a dead rail), never
// closes (a recovered rail stays unused), lets every payout probe at once, or
// does not grow its cool-down while the rail keeps failing. Real Redis, a
// clock the test moves.
import { randomBytes } from 'node:crypto';
import { createRedis, loadConfig, type RedisClient } from '@cowrie/core';
import { createRailHealth } from '../src';

let redis: RedisClient;
const keyPrefix = `cowrie-t-health-${randomBytes(4).toString('hex')}:`;
let clock = 1_000_000;
const health = () => createRailHealth({ redis, keyPrefix, cooldownMs: 1000, maxCooldownMs: 3000, now: () => clock });

beforeAll(() => {
  redis = createRedis(loadConfig({ REDIS_URL: process.env.REDIS_URL }));
});
afterAll(async () => {
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

test('closed → open on a failure of its own → half-open after the cool-down with a single probe → closed on its success', async () => {
  const a = health();
  const b = health(); // another process
  expect(await a.allows('paystack')).toBe(true);
  await a.failed('paystack');
  expect(await b.allows('paystack')).toBe(false);
  expect(await b.states(['paystack', 'flutterwave'])).toEqual([
    { rail: 'paystack', state: 'open', failures: 1, openUntil: new Date(clock + 1000).toISOString() },
    { rail: 'flutterwave', state: 'closed', failures: 0, openUntil: null },
  ]);
  clock += 1000;
  expect((await a.states(['paystack']))[0]!.state).toBe('half_open');
  // One probe, whichever process asks first; the others keep passing it over.
  expect(await b.allows('paystack')).toBe(true);
  expect(await a.allows('paystack')).toBe(false);
  await b.succeeded('paystack');
  expect(await a.allows('paystack')).toBe(true);
  expect((await a.states(['paystack']))[0]).toMatchObject({ state: 'closed', failures: 0 });
});

test('the cool-down doubles while the rail keeps failing, up to the maximum', async () => {
  const h = health();
  const openFor = async () => Date.parse((await h.states(['flutterwave']))[0]!.openUntil!) - clock;
  await h.failed('flutterwave');
  expect(await openFor()).toBe(1000);
  clock += 1000;
  expect(await h.allows('flutterwave')).toBe(true); // the probe
  await h.failed('flutterwave'); // the probe failed
  expect(await openFor()).toBe(2000);
  expect(await h.allows('flutterwave')).toBe(false);
  await h.failed('flutterwave');
  expect(await openFor()).toBe(3000);
  await h.failed('flutterwave');
  expect(await openFor()).toBe(3000);
  await h.succeeded('flutterwave');
  expect((await h.states(['flutterwave']))[0]!.state).toBe('closed');
});

test('a success on a healthy rail writes nothing', async () => {
  const h = health();
  expect(await h.allows('sandbox')).toBe(true);
  await h.succeeded('sandbox');
  expect(await redis.exists(`${keyPrefix}rails:health:sandbox`)).toBe(0);
});

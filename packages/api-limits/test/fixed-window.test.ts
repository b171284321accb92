// Risk: a request budget's counter that miscounts, or never expires; an
// attempt window that a caller can reopen.
import { randomBytes } from 'node:crypto';
import { createRedis, type RedisClient } from '@cowrie/core';
import { giveBackAttempt, takeAttempt } from '../src/attempt-window';
import { hitFixedWindow, hitFixedWindowAndRead } from '../src/fixed-window';

let redis: RedisClient;
const prefix = `cowrie-test-fixed-window-${randomBytes(4).toString('hex')}:`;
const WINDOW = 86_400;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const windowStart = Math.floor(NOW / 1000 / WINDOW) * WINDOW;

beforeAll(() => {
  redis = createRedis({
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_CLUSTER_NODES: [],
    REDIS_SENTINELS: [],
    REDIS_SENTINEL_NAME: 'mymaster',
  });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const count = async (key: string) => Number((await redis.get(`${prefix}${key}:${windowStart}`)) ?? 0);
test('hitFixedWindow reports count, remaining and the window end', async () => {
  const first = await hitFixedWindow(redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  expect(first).toEqual({ limit: 2, count: 1, remaining: 1, resetAt: windowStart + WINDOW, allowed: true, retryAfterSeconds: 12 * 3600 });
  await hitFixedWindow(redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  const third = await hitFixedWindow(redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  expect(third).toMatchObject({ count: 3, remaining: 0, allowed: false });
});

test('hitFixedWindowAndRead counts as hitFixedWindow does and reads the other key in the same command', async () => {
  const opts = { key: `${prefix}read`, limit: 1, windowSeconds: WINDOW, now: NOW };
  const first = await hitFixedWindowAndRead(redis, opts, `${prefix}epoch`);
  expect(first).toEqual({ hit: { limit: 1, count: 1, remaining: 0, resetAt: windowStart + WINDOW, allowed: true, retryAfterSeconds: 12 * 3600 }, read: null });
  expect(await redis.ttl(`${prefix}read:${windowStart}`)).toBe(WINDOW + 5);
  await redis.set(`${prefix}epoch`, 'e-1');
  const second = await hitFixedWindowAndRead(redis, opts, `${prefix}epoch`);
  expect(second).toEqual({ hit: expect.objectContaining({ count: 2, remaining: 0, allowed: false }), read: 'e-1' });
  expect(await count('read')).toBe(2);
});

test('an attempt window starts at its first attempt, gives back what it names, and never recreates a window that is gone', async () => {
  const key = `${prefix}attempts`;
  const first = await takeAttempt(redis, { key, limit: 2, windowSeconds: 900 });
  expect(first).toMatchObject({ count: 1, allowed: true });
  expect(first.retryAfterSeconds).toBe(900);
  // The window runs from the first attempt, not from a clock boundary.
  expect(await redis.pttl(key)).toBeGreaterThan(899_000);
  await takeAttempt(redis, { key, limit: 2, windowSeconds: 900 });
  await giveBackAttempt(redis, key);
  expect(Number(await redis.get(key))).toBe(1);
  expect((await takeAttempt(redis, { key, limit: 2, windowSeconds: 900 })).allowed).toBe(true);
  expect((await takeAttempt(redis, { key, limit: 2, windowSeconds: 900 })).allowed).toBe(false);

  await redis.del(key);
  await giveBackAttempt(redis, key);
  expect(await redis.exists(key)).toBe(0);
});

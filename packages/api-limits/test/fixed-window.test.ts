// Risk: a request budget's counter that miscounts, or never expires; an
// attempt window that a caller can reopen.
import { useTestRedis } from './test-redis';
import { giveBackAttempt, takeAttempt } from '../src/attempt-window';
import { hitFixedWindow, hitFixedWindowAndRead } from '../src/fixed-window';

const WINDOW = 86_400;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const windowStart = Math.floor(NOW / 1000 / WINDOW) * WINDOW;

const store = useTestRedis('fixed-window');
const { prefix } = store;

const count = async (key: string) => Number((await store.redis.get(`${prefix}${key}:${windowStart}`)) ?? 0);
test('hitFixedWindow reports count, remaining and the window end', async () => {
  const first = await hitFixedWindow(store.redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  expect(first).toEqual({ limit: 2, count: 1, remaining: 1, resetAt: windowStart + WINDOW, allowed: true, retryAfterSeconds: 12 * 3600 });
  await hitFixedWindow(store.redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  const third = await hitFixedWindow(store.redis, { key: `${prefix}single`, limit: 2, windowSeconds: WINDOW, now: NOW });
  expect(third).toMatchObject({ count: 3, remaining: 0, allowed: false });
});

test('hitFixedWindowAndRead counts as hitFixedWindow does and reads the other key in the same command', async () => {
  const opts = { key: `${prefix}read`, limit: 1, windowSeconds: WINDOW, now: NOW };
  const first = await hitFixedWindowAndRead(store.redis, opts, `${prefix}epoch`);
  expect(first).toEqual({ hit: { limit: 1, count: 1, remaining: 0, resetAt: windowStart + WINDOW, allowed: true, retryAfterSeconds: 12 * 3600 }, read: null });
  expect(await store.redis.ttl(`${prefix}read:${windowStart}`)).toBe(WINDOW + 5);
  await store.redis.set(`${prefix}epoch`, 'e-1');
  const second = await hitFixedWindowAndRead(store.redis, opts, `${prefix}epoch`);
  expect(second).toEqual({ hit: expect.objectContaining({ count: 2, remaining: 0, allowed: false }), read: 'e-1' });
  expect(await count('read')).toBe(2);
});

test('an attempt window starts at its first attempt, gives back what it names, and never recreates a window that is gone', async () => {
  const key = `${prefix}attempts`;
  const first = await takeAttempt(store.redis, { key, limit: 2, windowSeconds: 900 });
  expect(first).toMatchObject({ count: 1, allowed: true });
  expect(first.retryAfterSeconds).toBe(900);
  // The window runs from the first attempt, not from a clock boundary.
  expect(await store.redis.pttl(key)).toBeGreaterThan(899_000);
  await takeAttempt(store.redis, { key, limit: 2, windowSeconds: 900 });
  await giveBackAttempt(store.redis, key);
  expect(Number(await store.redis.get(key))).toBe(1);
  expect((await takeAttempt(store.redis, { key, limit: 2, windowSeconds: 900 })).allowed).toBe(true);
  expect((await takeAttempt(store.redis, { key, limit: 2, windowSeconds: 900 })).allowed).toBe(false);

  await store.redis.del(key);
  await giveBackAttempt(store.redis, key);
  expect(await store.redis.exists(key)).toBe(0);
});

// Risk: a limit of N per window letting 2N through across a clock boundary; a
// counter pushed past its limit by racing callers; a hit refused by one
// counter still counted in another; a counter that never expires.
import { useTestRedis } from './test-redis';
import { hitSlidingWindowsTogether } from '../src/sliding-window';

const WINDOW = 900;
const T0 = Date.UTC(2026, 10, 22, 12, 14, 58);

const store = useTestRedis('sliding-window');
const { prefix } = store;

const counted = (key: string) => store.redis.zcard(`${prefix}${key}`);
const together = (a: number, b: number, tag: string, now = T0) =>
  hitSlidingWindowsTogether(store.redis, {
    counters: [
      { name: 'a', key: `${prefix}{${tag}}:a`, limit: a },
      { name: 'b', key: `${prefix}{${tag}}:b`, limit: b },
    ],
    windowSeconds: WINDOW,
    now,
  });

test('a hit counts in every counter while all are under their limits; then nothing is counted and the first full one is named', async () => {
  expect(await together(2, 3, 't1')).toEqual({ kind: 'allowed' });
  expect(await together(2, 3, 't1', T0 + 1000)).toEqual({ kind: 'allowed' });
  // Full until the first hit leaves the window, 900 s after it.
  expect(await together(2, 3, 't1', T0 + 2000)).toEqual({ kind: 'refused', full: 'a', retryAfterSeconds: WINDOW - 2 });
  expect([await counted('{t1}:a'), await counted('{t1}:b')]).toEqual([2, 2]);
  // b full first: refused as b, and a is not counted either.
  expect(await together(5, 2, 't1', T0 + 2000)).toEqual({ kind: 'refused', full: 'b', retryAfterSeconds: WINDOW - 2 });
  expect([await counted('{t1}:a'), await counted('{t1}:b')]).toEqual([2, 2]);
});

test('at most the limit within any window: a burst across a clock boundary (12:15:00) gets no second allowance', async () => {
  const at = (ms: number) => together(5, 100, 't2', T0 + ms);
  const before = await Promise.all([0, 200, 400, 600, 800].map(at));
  expect(before.every((r) => r.kind === 'allowed')).toBe(true);
  // Past the quarter hour: a fixed window would start again here.
  expect(await at(2_500)).toEqual({ kind: 'refused', full: 'a', retryAfterSeconds: WINDOW - 2 });
  expect(await at(WINDOW * 1000 - 1)).toMatchObject({ kind: 'refused' });
  // The first hit leaves the window 900 s after it: one more fits, not five.
  expect(await at(WINDOW * 1000)).toEqual({ kind: 'allowed' });
  expect(await at(WINDOW * 1000 + 100)).toMatchObject({ kind: 'refused', retryAfterSeconds: 1 });
  expect(await counted('{t2}:a')).toBe(5);
});

test('racing hits never take a counter past its limit', async () => {
  const results = await Promise.all(Array.from({ length: 25 }, () => together(7, 100, 't3')));
  expect(results.filter((r) => r.kind === 'allowed')).toHaveLength(7);
  expect([await counted('{t3}:a'), await counted('{t3}:b')]).toEqual([7, 7]);
});

test('counters expire a window after their last hit', async () => {
  await together(1, 1, 't4');
  const ttl = await store.redis.pttl(`${prefix}{t4}:a`);
  expect(ttl).toBeGreaterThan(WINDOW * 1000 - 5000);
  expect(ttl).toBeLessThanOrEqual(WINDOW * 1000);
});

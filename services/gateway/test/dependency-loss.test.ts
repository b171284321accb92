// Risk: a request that loses Redis or Postgres midway answered 500, a status
// the API does not have, instead of its 503 provider_error, which a
// client retries (with its Idempotency-Key for a write).
import { createWorkspaceWithKey, startRedisServer, type RedisServer } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

let redis: RedisServer;
let gw: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  redis = await startRedisServer();
  gw = await startTestGateway({ REDIS_URL: redis.url });
});
afterAll(async () => {
  await gw.close();
  await redis.stop();
});

test('Redis gone: a /v1 request is 503 provider_error with Retry-After, never a 500, and answers again once Redis is back', async () => {
  // ioredis prints its own unstructured notice for a connection error nobody listens to.
  const consoleErrors = jest.spyOn(console, 'error');
  const { key } = await createWorkspaceWithKey(gw.env.db);
  expect((await call(gw.url, 'GET', '/v1/balances', { token: key })).status).toBe(200);
  await redis.kill();
  const res = await call(gw.url, 'GET', '/v1/balances', { token: key });
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.body.error.code).toBe('provider_error');
  expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|redis/i);
  await redis.restart();
  for (let i = 0; i < 50 && (await call(gw.url, 'GET', '/v1/balances', { token: key })).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await call(gw.url, 'GET', '/v1/balances', { token: key })).status).toBe(200);

  // The lost connection was logged as structured warnings, once per connection in the window, and not by ioredis on the console.
  expect(consoleErrors.mock.calls.filter((args) => String(args[0]).includes('[ioredis]'))).toEqual([]);
  consoleErrors.mockRestore();
  const warnings = gw.env.logLines
    .filter((line) => line.includes('redis connection error; reconnecting'))
    .map((line) => JSON.parse(line) as { level: number; connection: string });
  expect(warnings.length).toBeGreaterThan(0);
  expect(warnings.every((w) => w.level === 40)).toBe(true);
  expect(new Set(warnings.map((w) => w.connection)).size).toBe(warnings.length);
});

test('Redis gone for a while: each request is still answered 503 promptly, not after a reconnect backoff grown long', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db);
  expect((await call(gw.url, 'GET', '/v1/balances', { token: key })).status).toBe(200);
  await redis.kill();
  try {
    // Long enough for ioredis's default backoff (50 ms more per attempt, up to 2 s) to have grown past a second.
    await new Promise((r) => setTimeout(r, 12_000));
    const took: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await call(gw.url, 'GET', '/v1/balances', { token: key });
      took.push(Date.now() - started);
      expect(res.status).toBe(503);
    }
    // A command waits for at most three reconnect attempts, each at most 500 ms apart.
    expect(Math.max(...took)).toBeLessThan(3500);
  } finally {
    await redis.restart();
  }
  await new Promise((r) => setTimeout(r, 1000));
  for (let i = 0; i < 50 && (await call(gw.url, 'GET', '/v1/balances', { token: key })).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await call(gw.url, 'GET', '/v1/balances', { token: key })).status).toBe(200);
}, 60_000);

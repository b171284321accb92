// Risk: /readyz that fails on managed Redis (CONFIG GET refused) and takes a
// healthy gateway out of rotation, or that hands raw driver errors (addresses,
// ports, error codes) to whoever asks.
import { createRedis, loadConfig } from '@cowrie/core';
import { createDb } from '@cowrie/db';
import { freePort, startRedisServer, type RedisServer, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { readiness } from '../src/api/health/handlers';
import { call, startTestGateway } from '../testing';

const servers: RedisServer[] = [];
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await env.cleanup();
});

async function gatewayOn(args: string[]) {
  const redis = await startRedisServer(args);
  servers.push(redis);
  return startTestGateway({ REDIS_URL: redis.url });
}

test('a Redis that refuses CONFIG GET (managed Redis) leaves the gateway ready, with a warning', async () => {
  const gw = await gatewayOn(['--rename-command', 'CONFIG', '']);
  try {
    const res = await call(gw.url, 'GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.data.checks.redis).toEqual({ ok: true, warning: 'maxmemory-policy unknown (CONFIG GET refused); it must be noeviction' });
  } finally {
    await gw.close();
  }
});

test('a Redis that may evict keys is not ready, and says why', async () => {
  const gw = await gatewayOn(['--maxmemory-policy', 'allkeys-lru']);
  try {
    const res = await call(gw.url, 'GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.error.details.checks.redis).toEqual({ ok: false, error: 'maxmemory-policy is allkeys-lru; BullMQ needs noeviction' });
  } finally {
    await gw.close();
  }
});

test('dependencies that do not answer are named without their raw errors, which go to the log', async () => {
  const closed = await freePort();
  const config = loadConfig({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${closed}/nowhere`, REDIS_URL: `redis://127.0.0.1:${closed}` });
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: 1 });
  const redis = createRedis(config, { name: 'readiness-test' });
  redis.on('error', () => undefined);
  try {
    const result = await readiness({ db, redis, logger: env.logger });
    expect(result).toEqual({
      ready: false,
      checks: { postgres: { ok: false, error: 'Postgres is not answering' }, redis: { ok: false, error: 'Redis is not answering' } },
    });
    const logged = env.logLines.filter((l) => l.includes('readiness check failed')).join('\n');
    expect(logged).toMatch(/"errorCode":"ECONNREFUSED"|DatabaseNotReachable/);
  } finally {
    redis.disconnect();
    await db.$disconnect();
  }
});

import { randomBytes } from 'node:crypto';
import { createRedis, type RedisClient } from '@cowrie/core';

/**
 * A Redis connection for one test file, opened before its tests, and a key
 * prefix of its own whose keys are deleted after them. Read `redis` inside
 * tests (it is set by the file's beforeAll).
 */
export function useTestRedis(name: string): { readonly redis: RedisClient; prefix: string } {
  const prefix = `cowrie-test-${name}-${randomBytes(4).toString('hex')}:`;
  let redis: RedisClient | undefined;
  beforeAll(() => {
    redis = createRedis({
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_CLUSTER_NODES: [],
      REDIS_SENTINELS: [],
      REDIS_SENTINEL_NAME: 'mymaster',
    });
  });
  afterAll(async () => {
    const keys = await redis!.keys(`${prefix}*`);
    if (keys.length) await redis!.del(...keys);
    await redis!.quit();
  });
  return {
    get redis() {
      if (!redis) throw new Error('useTestRedis: read redis inside a test');
      return redis;
    },
    prefix,
  };
}

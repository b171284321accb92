// Risk: a burst of first calls of several scripts on one fresh connection
// (200 concurrent sign-ins after a deploy) crashing the process. Lazily
// defined ioredis commands broke auto-pipelining (ioredis#1931): the gateway
// died with "results[i] is not iterable".
import { createRedis } from '@cowrie/core';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runScript } from '../src/run-script';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

test('many first calls of several scripts in one tick on a fresh auto-pipelined connection all answer', async () => {
  const redis = createRedis(env.config, { name: 'run-script-burst' });
  try {
    const key = (i: number) => `${env.config.REDIS_KEY_PREFIX}burst:${i}`;
    const scripts = ['return redis.call("INCR", KEYS[1])', 'return redis.call("INCRBY", KEYS[1], ARGV[1])', 'return tonumber(ARGV[1]) * 2'];
    const calls = Array.from({ length: 300 }, (_, i) => {
      // A plain command first, as a request does, so an auto-pipeline is open when scripts are first seen.
      void redis.get(key(i));
      const which = i % 3;
      return runScript(redis, scripts[which]!, which === 2 ? 0 : 1, which === 2 ? [i] : which === 1 ? [key(i), 5] : [key(i)]);
    });
    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 1 : i % 3 === 1 ? 5 : i * 2)));
    // The scripts are cached by the server now: a flushed cache (a restarted or failed-over Redis) is loaded again.
    await redis.script('FLUSH');
    expect(await runScript(redis, scripts[2]!, 0, [21])).toBe(42);
  } finally {
    redis.disconnect();
  }
});

// Risk: the stack the tests, the soak and the bench run against does not
// start what it is asked for, does not bring a crashed replica back (or
// brings back one that was killed on purpose), loses a private Redis's data
// on a restart, or leaves its database or its Redis keys behind.
import Redis from 'ioredis';
import { Client } from 'pg';
import { databaseUrlOf, startStack, waitFor, type Stack } from '../src';

/** A service-shaped process (listens on PORT, answers /healthz); @cowrie/testing starts no real service in its own tests. */
const SERVICE = 'packages/testing/test/fixtures/health-server.ts';

async function databaseExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrlOf('postgres') });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

const answers = async (url: string) => (await fetch(`${url}/healthz`).catch(() => null))?.status === 200;

const stacks: Stack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close().catch(() => undefined);
});

test('replicas of a service on a cloned database and the shared Redis: a crashed one comes back, a killed one stays down; close leaves nothing', async () => {
  const stack = await startStack({
    name: 'cowrie_t',
    database: 'template',
    services: [{ service: SERVICE, replicas: 2, listens: true, readyPath: '/healthz' }],
    env: { NODE_ENV: 'test', LOG_LEVEL: 'warn', LOG_FORMAT: 'json', DATABASE_POOL_SIZE: '2' },
    restartAfterMs: 100,
  });
  stacks.push(stack);
  const [first, second] = stack.replicas;
  expect(stack.urls(SERVICE)).toEqual([first!.url, second!.url]);
  expect(await Promise.all(stack.urls(SERVICE).map(answers))).toEqual([true, true]);
  expect(await databaseExists(stack.databaseName)).toBe(true);
  expect(stack.env.REDIS_KEY_PREFIX).toMatch(/^cowrie-t-[0-9a-f]{8}:$/);
  expect(stack.redisNodes).toEqual([]);

  // A crash: started again, counted, its last lines kept.
  first!.child!.kill('SIGKILL');
  await waitFor(() => first!.starts === 2 && first!.child, 10_000);
  expect(first!.crashes).toBe(1);
  expect(first!.crashTails[0]![0]).toContain('exited on its own (SIGKILL) after start 1');
  await waitFor(() => answers(first!.url!), 30_000, 100);

  // Killed on purpose: down until started.
  await stack.kill(second!);
  await new Promise((r) => setTimeout(r, 300));
  expect([second!.child, second!.crashes, await answers(second!.url!)]).toEqual([null, 0, false]);
  stack.start(second!);
  await waitFor(() => answers(second!.url!), 30_000, 100);

  expect(stack.peakRss()['health-server']).toBeGreaterThan(10);

  const redis = new Redis(stack.env.REDIS_URL!);
  try {
    await redis.set(`${stack.env.REDIS_KEY_PREFIX}left`, '1');
    await stack.close();
    expect([await databaseExists(stack.databaseName), await redis.keys(`${stack.env.REDIS_KEY_PREFIX}*`)]).toEqual([false, []]);
  } finally {
    redis.disconnect();
  }
});

test('its own Redis keeps its data when it is killed and restarted (AOF); close keeps the database when asked', async () => {
  const stack = await startStack({ name: 'cowrie_t', database: 'template', redis: 'own', services: [] });
  stacks.push(stack);
  const [node] = stack.redisNodes;
  expect(stack.env.REDIS_URL).toBe(node!.url);
  const redis = new Redis(node!.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  redis.on('error', () => undefined);
  try {
    await redis.set('kept', 'yes');
    await node!.kill();
    await node!.restart();
    expect(await waitFor(() => redis.get('kept').catch(() => null), 10_000, 100)).toBe('yes');
  } finally {
    redis.disconnect();
  }
  await stack.close({ keepDatabase: true });
  expect(await databaseExists(stack.databaseName)).toBe(true);
  // As `npm run soak` prints it: the database kept for inspection, dropped by hand.
  const client = new Client({ connectionString: databaseUrlOf('postgres') });
  await client.connect();
  await client.query(`DROP DATABASE "${stack.databaseName}" WITH (FORCE)`).finally(() => client.end());
});

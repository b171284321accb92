// Risk: a cached key that keeps working after its revocation (on this or
// another process), after Redis lost the epoch, or forever when an
// announcement was lost; a made-up key counted against a budget; a cache that
// still reads Postgres on every request (no point to it).
import { createTestEnv, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { announceApiKeyChange, apiKeyEpochKey, cachedApiKeyAuthenticator, readApiKeyEpoch } from '../src/api-key-cache';
import { findApiKeyRowWithSql, revokeApiKey, type FindApiKeyRow } from '../src/api-keys';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

/** Two processes' authenticators on one Postgres and Redis, each counting its Postgres reads. */
function processes(now?: () => number) {
  const prefix = env.config.REDIS_KEY_PREFIX;
  const make = () => {
    const reads = { count: 0 };
    const find: FindApiKeyRow = (lookupId) => {
      reads.count += 1;
      return findApiKeyRowWithSql(env.sql)(lookupId);
    };
    return { reads, authenticate: cachedApiKeyAuthenticator({ find, readEpoch: () => readApiKeyEpoch(env.redis, prefix), now }) };
  };
  return [make(), make()] as const;
}

const budget = () => {
  const counted: string[] = [];
  return { counted, hit: async (lookupId: string) => counted.push(lookupId) };
};

test('a known key is answered without reading Postgres again, and its budget is counted alongside', async () => {
  const [gateway] = processes();
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  const { counted, hit } = budget();
  for (let i = 0; i < 5; i++) expect((await gateway.authenticate(key, hit))?.key.keyId).toBe(keyId);
  expect(gateway.reads.count).toBe(1);
  expect(counted).toHaveLength(5);
});

test('with the epoch read by the budget itself, a known key costs one Redis command, and a revocation is still in force at once', async () => {
  const prefix = env.config.REDIS_KEY_PREFIX;
  const reads = { epoch: 0 };
  const authenticate = cachedApiKeyAuthenticator({
    find: findApiKeyRowWithSql(env.sql),
    readEpoch: () => {
      reads.epoch += 1;
      return readApiKeyEpoch(env.redis, prefix);
    },
  });
  // The budget as the gateway's script answers it: the epoch read in the same command (null when Redis has none).
  const budget = async () => ({ read: await env.redis.get(apiKeyEpochKey(prefix)) });
  const epochIn = (answer: { read: string | null }) => answer.read;
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  expect(await authenticate(key, budget, epochIn)).not.toBeNull();
  const afterFirst = reads.epoch;
  for (let i = 0; i < 3; i++) expect((await authenticate(key, budget, epochIn))?.key.keyId).toBe(keyId);
  expect(reads.epoch).toBe(afterFirst);
  await revokeApiKey(env.db, keyId);
  await announceApiKeyChange(env.redis, prefix);
  expect(await authenticate(key, budget, epochIn)).toBeNull();
});

test('with the epoch read by the budget, a lost epoch is made again and every cached key read again', async () => {
  const prefix = env.config.REDIS_KEY_PREFIX;
  const authenticate = cachedApiKeyAuthenticator({ find: findApiKeyRowWithSql(env.sql), readEpoch: () => readApiKeyEpoch(env.redis, prefix) });
  const budget = async () => ({ read: await env.redis.get(apiKeyEpochKey(prefix)) });
  const epochIn = (answer: { read: string | null }) => answer.read;
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  expect(await authenticate(key, budget, epochIn)).not.toBeNull();
  await revokeApiKey(env.db, keyId);
  await env.redis.del(apiKeyEpochKey(prefix));
  expect(await authenticate(key, budget, epochIn)).toBeNull();
  expect(await env.redis.get(apiKeyEpochKey(prefix))).not.toBeNull();
});

test('a revocation announced by one process is in force on the next request of every other', async () => {
  const [a, b] = processes();
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  const { hit } = budget();
  expect(await a.authenticate(key, hit)).not.toBeNull();
  expect(await b.authenticate(key, hit)).not.toBeNull();
  await revokeApiKey(env.db, keyId);
  await announceApiKeyChange(env.redis, env.config.REDIS_KEY_PREFIX);
  expect(await a.authenticate(key, hit)).toBeNull();
  expect(await b.authenticate(key, hit)).toBeNull();
});

test('a lost epoch (Redis flushed) makes every cached key be read again', async () => {
  const [gateway] = processes();
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  const { hit } = budget();
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  await revokeApiKey(env.db, keyId);
  await env.redis.del(apiKeyEpochKey(env.config.REDIS_KEY_PREFIX));
  expect(await gateway.authenticate(key, hit)).toBeNull();
});

test('a lost announcement is bounded: a cached row is read again after a minute', async () => {
  let clock = Date.now();
  const [gateway] = processes(() => clock);
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  const { hit } = budget();
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  await revokeApiKey(env.db, keyId);
  // No announcement: within the minute the cached row still answers...
  clock += 59_000;
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  // ...and after it, Postgres does.
  clock += 2_000;
  expect(await gateway.authenticate(key, hit)).toBeNull();
});

test('a cached key whose stop time passes (a rolled key at the end of its grace) stops answering then, with nothing announced', async () => {
  const [gateway] = processes();
  const { key, keyId } = await createWorkspaceWithKey(env.db);
  const { hit } = budget();
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  await env.db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date(Date.now() + 400) } });
  await announceApiKeyChange(env.redis, env.config.REDIS_KEY_PREFIX);
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  expect(gateway.reads.count).toBe(2);
  await new Promise((r) => setTimeout(r, 500));
  expect(await gateway.authenticate(key, hit)).toBeNull();
});

test('malformed, unknown and forged keys are refused without counting against any budget', async () => {
  const [gateway] = processes();
  const { key } = await createWorkspaceWithKey(env.db);
  const { counted, hit } = budget();
  expect(await gateway.authenticate(key, hit)).not.toBeNull();
  const forged = key.slice(0, -5) + (key.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA');
  for (const token of ['not-a-key', `ck_live_0123456789abcdef_${'A'.repeat(43)}`, forged]) {
    expect(await gateway.authenticate(token, hit)).toBeNull();
  }
  expect(counted).toHaveLength(1);
});

// Risk: scaling out breaks a shared guarantee: two gateway replicas on a Redis
// Cluster each keeping their own request budget, each running a request the
// other already took by its Idempotency-Key, or each counting a destination's
// verifications apart, or two webhook-senders each counting an endpoint's
// deliveries in flight; or a script refused by the Cluster (CROSSSLOT).
// A real three-master Cluster of private redis-servers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRedis } from '@cowrie/core';
import { createEndpointSlots } from '@cowrie/webhooks';
import { createWorkspaceWithKey, listenGateway, startRedisCluster, type RedisCluster, type RunningGateway, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { closeGatewayDeps, createApp, createGatewayDeps, type GatewayDeps } from '@cowrie/gateway';
import { fund } from './payout-stack';
import { call } from '@cowrie/gateway/testing';

const dir = mkdtempSync(path.join(tmpdir(), 'cowrie-cluster-'));
let cluster: RedisCluster;
let env: TestEnv;
let gateways: Array<RunningGateway<GatewayDeps>>;

beforeAll(async () => {
  cluster = await startRedisCluster({ dir });
  env = await createTestEnv({
    REDIS_CLUSTER_NODES: cluster.nodeList,
    PUBLIC_API_RATE_LIMIT: '10',
    VERIFY_RATE_DEST_LIMIT: '3',
    PAYOUT_SYNC_WAIT_MS: '100',
    VERIFY_SYNC_WAIT_MS: '100',
  });
  const build = {
    createDeps: (config: TestEnv['config'], logger: TestEnv['logger']) => createGatewayDeps(config, logger),
    createApp: (deps: GatewayDeps) => createApp(deps),
    closeDeps: closeGatewayDeps,
  };
  gateways = [await listenGateway<GatewayDeps>(env, build), await listenGateway<GatewayDeps>(env, build)];
}, 60_000);
afterAll(async () => {
  for (const gateway of gateways ?? []) await gateway.close();
  await env?.cleanup();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The i-th request goes to replica i mod 2. */
const replica = (i: number) => gateways[i % 2]!.url;

test('the request budget (PUBLIC_API_RATE_LIMIT) is one budget across replicas', async () => {
  const { key } = await createWorkspaceWithKey(env.db);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await call(replica(i), 'GET', '/v1/balances', { token: key })).status);
  expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
});

test('one Idempotency-Key sent to both replicas at once makes one payout, and both answers are its', async () => {
  const { key, workspaceId } = await createWorkspaceWithKey(env.db);
  await fund(env.db, workspaceId, 'NGN', '1000');
  const body = { currency: 'NGN', amount: 25, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' };
  const answers = await Promise.all(
    [0, 1, 0, 1].map((i) => call(replica(i), 'POST', '/v1/transfers', { token: key, body, headers: { 'idempotency-key': 'cluster-one-payout' } })),
  );
  expect(answers.every((a) => a.status < 300)).toBe(true);
  expect(new Set(answers.map((a) => a.body.data.reference)).size).toBe(1);
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId, direction: 'out' } })).toBe(1);
});

test("a destination's verification limit (VERIFY_RATE_DEST_LIMIT) is counted once across replicas", async () => {
  const { key } = await createWorkspaceWithKey(env.db);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++)
    statuses.push(
      (await call(replica(i), 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'cluster-limit@example.com' } })).status,
    );
  expect(statuses).toEqual([201, 201, 201, 429]);
});

test('an sms start: the fraud guard and the limits, one script over keys of one hash slot, counted once across replicas', async () => {
  const { key } = await createWorkspaceWithKey(env.db);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++)
    statuses.push((await call(replica(i), 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination: '+2348031234567' } })).status);
  expect(statuses).toEqual([201, 201, 201, 429]);
});

test("an endpoint's deliveries in flight (WEBHOOK_ENDPOINT_CONCURRENCY) are counted once across senders, whichever node holds the endpoint", async () => {
  const other = createRedis(env.config, { name: 'cluster-second-sender' });
  try {
    const senders = [env.redis, other].map((redis) =>
      createEndpointSlots(redis, { keyPrefix: env.config.REDIS_KEY_PREFIX, perEndpoint: 2, attemptTimeoutMs: 10_000 }),
    );
    // Enough endpoints that their keys fall on every master.
    for (let endpointId = 1; endpointId <= 6; endpointId++) {
      const taken = await Promise.all([0, 1, 2, 3].map((i) => senders[i % 2]!.take(endpointId, `webhook-${endpointId}-${i}`)));
      expect(taken.filter(Boolean)).toHaveLength(2);
      await taken.find(Boolean)!.release();
      expect(await senders[1]!.take(endpointId, `webhook-${endpointId}-next`)).not.toBeNull();
    }
  } finally {
    other.disconnect();
  }
});

// Risk: an endpoint that passed the creation check (or predates a stricter
// WEBHOOK_ALLOWED_CIDRS, or whose DNS now answers inward) is still delivered to
// a loopback or private address. The check at delivery time is on the
// resolved IP, not the host name. And a sender whose allow-list is malformed
// stops before it opens any connection, rather than running on a guess.
import net from 'node:net';
import { createWorkspace } from '@cowrie/accounts';
import { startHttpReceiver, waitFor, type HttpReceiver, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { systemResolver, type Resolver } from '@cowrie/webhooks';
import { startWebhookWorker, type RunningWebhookWorker } from '../src/worker';
import { addEndpoint, emit } from './helpers';

let env: TestEnv;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;

// A host name whose DNS answers with loopback.
const resolver: Resolver = async (host) => (host === 'rebound.example.test' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(host));

beforeAll(async () => {
  // Nothing private allowed in this deployment.
  env = await createTestEnv({ WEBHOOK_ALLOWED_CIDRS: '', WEBHOOK_RELAY_POLL_MS: '50' });
  expect(env.config.WEBHOOK_ALLOWED_CIDRS).toEqual([]);
  worker = await startWebhookWorker(env.config, env.logger, { resolver });
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await env?.cleanup();
});

test('deliveries to loopback are refused at delivery time, whatever the URL spelling; nothing is sent', async () => {
  const workspaceId = (await createWorkspace(env.db, { name: 'SSRF' })).id;
  const urls = [
    `${receiver.url}/literal`,
    `http://localhost:${receiver.port}/name`,
    `http://rebound.example.test:${receiver.port}/dns`,
    `http://[::ffff:127.0.0.1]:${receiver.port}/mapped`,
  ];
  // Created while loopback was allowed (e.g. before the operator tightened WEBHOOK_ALLOWED_CIDRS).
  const endpoints = [];
  for (const url of urls) endpoints.push(await addEndpoint(env, workspaceId, url, { allowedCidrs: ['127.0.0.0/8', '::1/128'] }));
  await emit(env, workspaceId, 'transfer.completed', { id: 1 });

  const rows = await waitFor(async () => {
    const done = await env.db.webhookDelivery.findMany({ where: { workspaceId, completedAt: { not: null } } });
    return done.length === urls.length ? done : null;
  });
  for (const row of rows) {
    expect(row).toMatchObject({ ok: 0, attempts: 1, statusCode: null });
    expect(row.error).toMatch(
      /^(127\.0\.0\.1|::ffff:7f00:1|localhost resolves to (127\.0\.0\.1|::1)|rebound\.example\.test resolves to 127\.0\.0\.1), a loopback address/,
    );
  }
  expect(receiver.requests).toHaveLength(0);
});

test('a malformed WEBHOOK_ALLOWED_CIDRS stops start-up before any connection opens', async () => {
  // Postgres and Redis would both be this listener: it counts whoever connects.
  let connections = 0;
  const listener = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as net.AddressInfo;
  try {
    const config = {
      ...env.config,
      WEBHOOK_ALLOWED_CIDRS: ['10.0.0.0/33'],
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/cowrie`,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_CLUSTER_NODES: [],
    };
    await expect(startWebhookWorker(config, env.logger)).rejects.toThrow('not a CIDR: "10.0.0.0/33"');
    await new Promise((r) => setTimeout(r, 300));
    expect(connections).toBe(0);
  } finally {
    await new Promise((r) => listener.close(r));
  }
});

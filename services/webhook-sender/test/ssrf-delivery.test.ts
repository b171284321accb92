// Risk: an endpoint that passed the creation check (or predates a stricter
// WEBHOOK_ALLOWED_CIDRS, or whose DNS now answers inward) is still delivered to
// a loopback or private address. The check at delivery time is on the
// resolved IP, not the host name.
import { createWorkspace } from '@cowrie/accounts';
import { createTestEnv, startHttpReceiver, waitFor, type HttpReceiver, type TestEnv } from '@cowrie/testing';
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

// Risk (the event catalog): a UI or receiver told an event list or data shape that differs from what is sent.
// Risk: a secret roll that loses deliveries (a receiver still holding the old
// secret refuses everything at once), an old secret that keeps signing after
// its grace period, a retried roll that makes a secret nobody saw, a roll of
// another workspace's endpoint, a new secret stored readable.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startHttpReceiver, type HttpReceiver } from '@cowrie/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { verifyWebhookSignature } from '@cowrie/webhooks';
import { call, signInNewWorkspace, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
let a: { token: string };
let b: { token: string };

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_TEST_RATE_LIMIT: '1000' });
  worker = await startWebhookWorker(gw.env.config, gw.env.logger);
  receiver = await startHttpReceiver();
  a = await signInNewWorkspace(gw, 'Roll A');
  b = await signInNewWorkspace(gw, 'Roll B');
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await gw?.close();
});

/** Sends a ping through the real sender and returns what the receiver got. */
async function ping(endpointId: number) {
  const before = receiver.requests.length;
  const res = await call(gw.url, 'POST', `/webhook-endpoints/${endpointId}/test`, { token: a.token });
  expect(res.body.data.ok).toBe(true);
  expect(receiver.requests.length).toBe(before + 1);
  const received = receiver.requests.at(-1)!;
  const header = received.headers['x-cowrie-signature'] as string;
  return { header, verifies: (secret: string) => verifyWebhookSignature({ rawBody: received.rawBody, header, secret }) };
}

const roll = (endpointId: number, body: unknown, token = a.token, headers: Record<string, string> = {}) =>
  call(gw.url, 'POST', `/webhook-endpoints/${endpointId}/roll-secret`, { token, body, headers });

test('during the grace period both secrets sign every delivery; after it only the new one', async () => {
  const created = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/roll` } });
  const id = created.body.data.id as number;
  const oldSecret = created.body.data.secret as string;

  const rolled = await roll(id, { grace_seconds: 3 });
  expect(rolled.status).toBe(201);
  const newSecret = rolled.body.data.secret as string;
  expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(newSecret).not.toBe(oldSecret);
  expect(Date.parse(rolled.body.data.previous_secret_expires_at) - Date.now()).toBeLessThanOrEqual(3000);
  expect(rolled.body.data).toMatchObject({ id, url: `${receiver.url}/roll`, active: true, has_secret: true });

  const during = await ping(id);
  expect(during.header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  expect(during.verifies(oldSecret)).toBe(true);
  expect(during.verifies(newSecret)).toBe(true);

  await new Promise((resolve) => setTimeout(resolve, 3100));
  const after = await ping(id);
  expect(after.header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(after.verifies(newSecret)).toBe(true);
  expect(after.verifies(oldSecret)).toBe(false);
});

test('a grace of 0 stops the old secret now; a roll during a grace period keeps only the last two', async () => {
  const created = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/now` } });
  const id = created.body.data.id as number;
  const first = created.body.data.secret as string;
  const now = await roll(id, { grace_seconds: 0 });
  expect(now.body.data.previous_secret_expires_at).toBeNull();
  const second = now.body.data.secret as string;
  const once = await ping(id);
  expect([once.verifies(second), once.verifies(first)]).toEqual([true, false]);

  const third = (await roll(id, { grace_seconds: 60 })).body.data.secret as string;
  const fourth = (await roll(id, {})).body.data.secret as string;
  const signed = await ping(id);
  expect([signed.verifies(fourth), signed.verifies(third), signed.verifies(second)]).toEqual([true, true, false]);
});

test('a roll retried with its Idempotency-Key replays the same secret; other workspaces and bad input are refused', async () => {
  const created = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/retry` } });
  const id = created.body.data.id as number;
  const headers = { 'Idempotency-Key': `roll-secret-${id}` };
  const first = await roll(id, { grace_seconds: 60 }, a.token, headers);
  const retry = await roll(id, { grace_seconds: 60 }, a.token, headers);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body.data.secret).toBe(first.body.data.secret);
  const signed = await ping(id);
  expect(signed.verifies(first.body.data.secret)).toBe(true);

  expect((await roll(id, {}, b.token)).body.error.code).toBe('not_found');
  const tooLong = await roll(id, { grace_seconds: 7 * 24 * 3600 + 1 });
  expect(tooLong.status).toBe(400);
  expect(tooLong.body.error.details.field).toBe('grace_seconds');
  expect((await roll(id, { grace_seconds: 'soon' })).status).toBe(400);
  // Nothing above changed the secret: the first roll's still signs alone.
  expect((await ping(id)).verifies(first.body.data.secret)).toBe(true);
});

test('two rolls of one endpoint at the same moment are applied one after the other: both answer 201, and both new secrets sign (none is lost)', async () => {
  const created = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/concurrent` } });
  const id = created.body.data.id as number;
  const original = created.body.data.secret as string;
  // The row is held while both rolls start: each reads the endpoint, then waits
  // on the row to write it, so both read the same secret before either writes.
  const lockWaiters = async () =>
    (
      await gw.env.db.$queryRaw<
        Array<{ n: number }>
      >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
    )[0]!.n;
  const { rolls } = await gw.env.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM "WebhookEndpoint" WHERE id = ${id} FOR UPDATE`;
      const started = Promise.all([roll(id, { grace_seconds: 60 }), roll(id, { grace_seconds: 60 })]);
      for (let i = 0; i < 200 && (await lockWaiters()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await lockWaiters()).toBe(2);
      return { rolls: started };
    },
    { timeout: 20_000 },
  );
  const [one, two] = await rolls;
  expect([one.status, two.status]).toEqual([201, 201]);
  const secrets = [one.body.data.secret as string, two.body.data.secret as string];
  expect(secrets[0]).not.toBe(secrets[1]);
  // The later roll's old secret is the earlier roll's new one, not the secret both read.
  const signed = await ping(id);
  expect([signed.verifies(secrets[0]!), signed.verifies(secrets[1]!), signed.verifies(original)]).toEqual([true, true, false]);
});

test('the event catalog lists every event with a JSON Schema of its data, and a real delivery matches it', async () => {
  const { WEBHOOK_EVENTS } = await import('@cowrie/gateway');
  const res = await call(gw.url, 'GET', '/webhook-event-types', { token: a.token });
  expect(res.status).toBe(200);
  const types = res.body.data as Array<{ name: string; summary: string; data_schema: Record<string, unknown> }>;
  expect(types.map((t) => t.name).sort()).toEqual(WEBHOOK_EVENTS.map((e) => e.name).sort());
  const ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true }));
  const validators = new Map(types.map((t) => [t.name, ajv.compile(t.data_schema)]));

  const created = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/catalog` } });
  await ping(created.body.data.id);
  const body = JSON.parse(receiver.requests.at(-1)!.rawBody.toString('utf8'));
  expect(body.event).toBe('ping');
  expect(validators.get('ping')!(body.data)).toBe(true);
  expect(validators.get('ping')!({ message: 1 })).toBe(false);
  expect((await call(gw.url, 'GET', '/webhook-event-types')).status).toBe(401);
});

// Risk: a receiver using a Standard Webhooks library (the `standardwebhooks`
// npm package here) cannot verify a real delivery (headers missing, a secret
// in another form or other key bytes, a retry or resend with another
// webhook-id, a secret roll that breaks one of the two secrets), or accepts a
// tampered body, a wrong secret or an old timestamp; or the X-Cowrie-* headers
// change under receivers that already verify them.
import { startHttpReceiver, waitFor, type HttpReceiver, type ReceivedRequest } from '@cowrie/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { verifyWebhookSignature } from '@cowrie/webhooks';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { call, signInNewWorkspace, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
/** Paths the receiver answers 500 to, once each. */
const failOnce = new Set<string>();
/** How far the sender's clock is off the real one (the old-timestamp test sets it). */
let clockOffsetMs = 0;
let a: { workspaceId: number; token: string };

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_TEST_RATE_LIMIT: '1000', WEBHOOK_RELAY_POLL_MS: '20' });
  worker = await startWebhookWorker(gw.env.config, gw.env.logger, { now: () => new Date(Date.now() + clockOffsetMs) });
  receiver = await startHttpReceiver((req) => (failOnce.delete(req.path) ? { status: 500, body: 'try again' } : { status: 200, body: 'ok' }));
  a = await signInNewWorkspace(gw, 'Standard Webhooks');
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await gw?.close();
});

interface CreatedEndpoint {
  id: number;
  secret: string;
  standard_webhooks_secret: string;
}

async function createEndpoint(path: string, events = ['*']): Promise<CreatedEndpoint> {
  const res = await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}${path}`, events } });
  expect(res.status).toBe(201);
  return res.body.data as CreatedEndpoint;
}

const requestsTo = (path: string) => receiver.requests.filter((r) => r.path === path);
const header = (r: ReceivedRequest, name: string) => r.headers[name] as string;
/** The three Standard Webhooks headers as the package takes them. */
const standardHeaders = (r: ReceivedRequest) => ({
  'webhook-id': header(r, 'webhook-id'),
  'webhook-timestamp': header(r, 'webhook-timestamp'),
  'webhook-signature': header(r, 'webhook-signature'),
});
/** What `Webhook(secret).verify` says of a request: the parsed body, or the refusal's message. */
function verifyWith(secret: string, r: ReceivedRequest, body: Buffer | string = r.rawBody): { ok: true; body: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, body: new Webhook(secret).verify(body, standardHeaders(r)) };
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    return { ok: false, error: err.message };
  }
}

/** Sends a ping through the real sender; the request the receiver got. */
async function ping(endpointId: number, path: string): Promise<ReceivedRequest> {
  const before = requestsTo(path).length;
  const res = await call(gw.url, 'POST', `/webhook-endpoints/${endpointId}/test`, { token: a.token });
  expect(res.body.data.ok).toBe(true);
  expect(requestsTo(path)).toHaveLength(before + 1);
  return requestsTo(path).at(-1)!;
}

test('the whsec_ secret is the same key bytes as the 64-hex secret, shown only where the secret is', async () => {
  const endpoint = await createEndpoint('/form');
  expect(endpoint.secret).toMatch(/^[0-9a-f]{64}$/);
  expect(endpoint.standard_webhooks_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  // The HMAC key of X-Cowrie-Signature is the hex string's UTF-8 bytes; whsec_ is their base64.
  expect(Buffer.from(endpoint.standard_webhooks_secret.slice('whsec_'.length), 'base64').toString('utf8')).toBe(endpoint.secret);

  const list = await call(gw.url, 'GET', '/webhook-endpoints', { token: a.token });
  expect(list.status).toBe(200);
  expect(list.body.data.map((e: { id: number }) => e.id)).toContain(endpoint.id);
  expect(JSON.stringify(list.body)).not.toContain(endpoint.secret);
  expect(JSON.stringify(list.body)).not.toContain(endpoint.standard_webhooks_secret);
});

test('an event delivery and its retry carry webhook-id (the delivery id), webhook-timestamp and a v1 signature the package accepts', async () => {
  const endpoint = await createEndpoint('/retry', ['transfer.completed']);
  failOnce.add('/retry');
  await gw.env.db.outboxEvent.create({ data: { workspaceId: a.workspaceId, event: 'transfer.completed', payload: { order: 7 } } });
  const row = await waitFor(() => gw.env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, completedAt: { not: null } } }));
  expect(row).toMatchObject({ ok: 1, attempts: 2 });
  const [first, retry] = requestsTo('/retry');
  expect(requestsTo('/retry')).toHaveLength(2);

  for (const r of [first!, retry!]) {
    const body = JSON.parse(r.rawBody.toString('utf8')) as { id: string; event: string };
    expect(header(r, 'webhook-id')).toBe(row.deliveryId);
    expect(header(r, 'webhook-id')).toBe(header(r, 'x-cowrie-delivery'));
    expect(header(r, 'webhook-id')).toBe(body.id);
    expect(header(r, 'webhook-timestamp')).toMatch(/^\d{10}$/);
    expect(header(r, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // One timestamp for both header sets.
    expect(header(r, 'x-cowrie-signature')).toMatch(new RegExp(`^t=${header(r, 'webhook-timestamp')},v1=[0-9a-f]{64}$`));
    expect(verifyWith(endpoint.standard_webhooks_secret, r)).toEqual({ ok: true, body });
    // The X-Cowrie-* headers stay as they were, verified with the hex secret.
    expect(header(r, 'x-cowrie-event')).toBe('transfer.completed');
    expect(verifyWebhookSignature({ rawBody: r.rawBody, header: header(r, 'x-cowrie-signature'), secret: endpoint.secret })).toBe(true);
  }
  // The package's raw-key form, keyed with the hex string's bytes, agrees: one key, two spellings.
  expect(new Webhook(endpoint.secret, { format: 'raw' }).verify(retry!.rawBody, standardHeaders(retry!))).toEqual(JSON.parse(retry!.rawBody.toString('utf8')));

  // A resend is a new dispatch of the same delivery: the same webhook-id, signed afresh.
  const resent = await call(gw.url, 'POST', `/webhook-deliveries/${row.id}/resend`, { token: a.token });
  expect(resent.status).toBe(201);
  await waitFor(() => requestsTo('/retry').length === 3);
  const again = requestsTo('/retry')[2]!;
  expect(header(again, 'webhook-id')).toBe(row.deliveryId);
  expect(again.rawBody.equals(first!.rawBody)).toBe(true);
  expect(verifyWith(endpoint.standard_webhooks_secret, again)).toMatchObject({ ok: true });

  // The delivery log shows the headers as sent, never a secret.
  const detail = await call(gw.url, 'GET', `/webhook-deliveries/${row.id}`, { token: a.token });
  expect(detail.body.data.requestHeaders).toMatchObject(standardHeaders(retry!));
  expect(JSON.stringify(detail.body)).not.toContain(endpoint.standard_webhooks_secret);
});

test('a tampered body, a wrong secret and an old timestamp are refused by the package', async () => {
  const endpoint = await createEndpoint('/refusals');
  const other = await createEndpoint('/other');
  const r = await ping(endpoint.id, '/refusals');
  expect(verifyWith(endpoint.standard_webhooks_secret, r)).toMatchObject({ ok: true });

  const tampered = r.rawBody.toString('utf8').replace('"ping"', '"pong"');
  expect(tampered).not.toBe(r.rawBody.toString('utf8'));
  expect(verifyWith(endpoint.standard_webhooks_secret, r, tampered)).toEqual({ ok: false, error: 'No matching signature found' });
  expect(verifyWith(other.standard_webhooks_secret, r)).toEqual({ ok: false, error: 'No matching signature found' });
  // Another webhook-id (the id is signed too).
  expect(() => new Webhook(endpoint.standard_webhooks_secret).verify(r.rawBody, { ...standardHeaders(r), 'webhook-id': 'msg_other' })).toThrow(
    'No matching signature found',
  );

  // A delivery signed ten minutes ago: past the package's five-minute tolerance.
  clockOffsetMs = -10 * 60_000;
  try {
    const old = await ping(endpoint.id, '/refusals');
    expect(Number(header(old, 'webhook-timestamp'))).toBeLessThan(Date.now() / 1000 - 9 * 60);
    expect(verifyWith(endpoint.standard_webhooks_secret, old)).toEqual({ ok: false, error: 'Message timestamp too old' });
  } finally {
    clockOffsetMs = 0;
  }
});

test("during a roll's grace period both secrets sign, space-separated, and each verifies alone; after a grace of 0 only the new one", async () => {
  const endpoint = await createEndpoint('/roll');
  const rolled = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/roll-secret`, { token: a.token, body: { grace_seconds: 600 } });
  expect(rolled.status).toBe(201);
  const fresh = rolled.body.data as CreatedEndpoint;
  expect(fresh.standard_webhooks_secret).toBe(`whsec_${Buffer.from(fresh.secret, 'utf8').toString('base64')}`);
  expect(fresh.standard_webhooks_secret).not.toBe(endpoint.standard_webhooks_secret);

  const during = await ping(endpoint.id, '/roll');
  expect(header(during, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  expect(header(during, 'x-cowrie-signature')).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  const [newSig, oldSig] = header(during, 'webhook-signature').split(' ');
  expect(verifyWith(fresh.standard_webhooks_secret, during)).toMatchObject({ ok: true });
  expect(verifyWith(endpoint.standard_webhooks_secret, during)).toMatchObject({ ok: true });
  // The new secret's signature comes first, as in X-Cowrie-Signature; each verifies alone.
  const alone = (signature: string) => ({ ...standardHeaders(during), 'webhook-signature': signature });
  expect(new Webhook(fresh.standard_webhooks_secret).verify(during.rawBody, alone(newSig!))).toBeTruthy();
  expect(new Webhook(endpoint.standard_webhooks_secret).verify(during.rawBody, alone(oldSig!))).toBeTruthy();
  expect(() => new Webhook(endpoint.standard_webhooks_secret).verify(during.rawBody, alone(newSig!))).toThrow(WebhookVerificationError);
  expect(verifyWith((await createEndpoint('/stranger')).standard_webhooks_secret, during)).toMatchObject({ ok: false });

  const now = await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.id}/roll-secret`, { token: a.token, body: { grace_seconds: 0 } });
  const last = now.body.data as CreatedEndpoint;
  const after = await ping(endpoint.id, '/roll');
  expect(header(after, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  expect(verifyWith(last.standard_webhooks_secret, after)).toMatchObject({ ok: true });
  expect(verifyWith(fresh.standard_webhooks_secret, after)).toEqual({ ok: false, error: 'No matching signature found' });
});

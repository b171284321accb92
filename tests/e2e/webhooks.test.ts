// Risk: webhook endpoints managed with an API key or by another workspace, a
// secret shown twice or stored readable, an endpoint aimed at internal
// addresses, a test ping that does not reflect what the receiver saw, a
// delivery log that leaks across workspaces or ignores its limits.
import { decryptSecret } from '@cowrie/core';
import { startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { verifyWebhookSignature } from '@cowrie/webhooks';
import { call, signInNewWorkspace, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
let failing: HttpReceiver;
let a: { workspaceId: number; token: string; apiKey: string };
let b: { workspaceId: number; token: string; apiKey: string };

beforeAll(async () => {
  // Workspace A collects more endpoints over this file than a workspace may have by default (WEBHOOK_ENDPOINTS_MAX).
  gw = await startTestGateway({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_ENDPOINTS_MAX: '100' });
  worker = await startWebhookWorker(gw.env.config, gw.env.logger);
  receiver = await startHttpReceiver();
  failing = await startHttpReceiver(() => ({ status: 500 }));
  a = await signInNewWorkspace(gw, 'Workspace A');
  b = await signInNewWorkspace(gw, 'Workspace B');
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await failing?.close();
  await gw?.close();
});

const create = (token: string, body: unknown) => call(gw.url, 'POST', '/webhook-endpoints', { token, body });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('create answers 201 with the record and a 64-hex secret; events default to ["*"]', async () => {
  const res = await create(a.token, { url: `${receiver.url}/a` });
  expect(res.status).toBe(201);
  expect(Object.keys(res.body.data).sort()).toEqual([
    'active',
    'created_at',
    'disabled_at',
    'disabled_reason',
    'events',
    'has_secret',
    'id',
    'secret',
    'standard_webhooks_secret',
    'url',
  ]);
  expect(res.body.data).toMatchObject({ url: `${receiver.url}/a`, events: ['*'], active: true, has_secret: true });
  expect(res.body.data.id).toEqual(expect.any(Number));
  expect(res.body.data.created_at).toMatch(ISO);
  expect(res.body.data.secret).toMatch(/^[0-9a-f]{64}$/);

  expect((await create(a.token, { url: `${receiver.url}/b`, events: [] })).body.data.events).toEqual(['*']);
  expect((await create(a.token, { url: `${receiver.url}/c`, events: null })).body.data.events).toEqual(['*']);
  const chosen = await create(a.token, {
    url: `${receiver.url}/d`,
    events: ['transfer.completed', 'verification.verified', 'transfer.completed'],
    active: false,
  });
  expect(chosen.status).toBe(201);
  expect(chosen.body.data).toMatchObject({ events: ['transfer.completed', 'verification.verified'], active: false });
  expect(chosen.body.data.secret).not.toBe(res.body.data.secret);
});

test('the secret is shown once: never listed, never updated, stored sealed, never logged', async () => {
  const created = (await create(a.token, { url: `${receiver.url}/secret` })).body.data;
  const list = await call(gw.url, 'GET', '/webhook-endpoints', { token: a.token });
  expect(list.status).toBe(200);
  const listed = list.body.data.find((e: { id: number }) => e.id === created.id);
  expect(listed).toEqual({
    id: created.id,
    url: created.url,
    events: ['*'],
    active: true,
    has_secret: true,
    created_at: created.created_at,
    disabled_reason: null,
    disabled_at: null,
  });
  expect(JSON.stringify(list.body)).not.toContain(created.secret);

  const put = await call(gw.url, 'PUT', `/webhook-endpoints/${created.id}`, { token: a.token, body: { secret: 'f'.repeat(64), active: true } });
  expect(put.status).toBe(200);
  expect(put.body.data).not.toHaveProperty('secret');

  const row = await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
  expect(row.secretEncrypted).not.toContain(created.secret);
  expect(decryptSecret(row.secretEncrypted, gw.env.config.ENCRYPTION_KEY)).toBe(created.secret);
  expect(gw.env.logLines.join('\n')).not.toContain(created.secret);
});

test.each([
  ['a missing url', {}, 'url'],
  ['a relative url', { url: '/hooks' }, 'url'],
  ['a non-http url', { url: 'ftp://example.com/hook' }, 'url'],
  ['a url over 512 characters', { url: `http://127.0.0.1/${'x'.repeat(496)}` }, 'url'],
  ['a url with a user and password (never sent; events would carry them)', { url: 'http://hookuser:S3cretPw@127.0.0.1/hook' }, 'url'],
  ['a url with a user', { url: 'https://hookuser@example.com/hook' }, 'url'],
  ['a url that is not a string', { url: 42 }, 'url'],
  ['events that are not an array', { url: 'http://127.0.0.1/x', events: 'transfer.completed' }, 'events'],
  ['an event name that is not a string', { url: 'http://127.0.0.1/x', events: [7] }, 'events.0'],
  ['active that is not a boolean', { url: 'http://127.0.0.1/x', active: 'yes' }, 'active'],
])('create refuses %s with 400 naming the field, writing nothing', async (_name, body, field) => {
  const before = await gw.env.db.webhookEndpoint.count();
  const res = await create(a.token, body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.details.field).toBe(field);
  expect(await gw.env.db.webhookEndpoint.count()).toBe(before);
});

test.each([
  ['a misspelt event', ['transfer.complete'], ['transfer.complete']],
  ['unknown events beside known ones', ['transfer.completed', 'order.paid', 'Transfer.Completed', 'order.paid'], ['order.paid', 'Transfer.Completed']],
  ['an empty event name', [''], ['']],
  ['a wildcard that is not *', ['transfer.*'], ['transfer.*']],
])('create and update refuse %s with 400 on events, naming each unknown name, writing nothing', async (_name, events, unknown) => {
  const before = await gw.env.db.webhookEndpoint.count();
  const res = await create(a.token, { url: `${receiver.url}/unknown-events`, events });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'events' } });
  expect(res.body.error.message).toMatch(/^events /);
  for (const name of unknown) expect(res.body.error.message).toContain(JSON.stringify(name));
  expect(res.body.error.message).not.toContain('"transfer.completed"');
  expect(await gw.env.db.webhookEndpoint.count()).toBe(before);

  const ep = (await create(a.token, { url: `${receiver.url}/known-events`, events: ['transfer.completed'] })).body.data;
  const put = await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, { token: a.token, body: { events, active: false } });
  expect(put.status).toBe(400);
  expect(put.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'events' } });
  for (const name of unknown) expect(put.body.error.message).toContain(JSON.stringify(name));
  expect(await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).toMatchObject({ events: ['transfer.completed'], active: true });
});

test('every event of GET /webhook-event-types, and *, can be subscribed to (ping included: the test sends it whatever the subscription)', async () => {
  const types = (await call(gw.url, 'GET', '/webhook-event-types', { token: a.token })).body.data.map((t: { name: string }) => t.name);
  expect(types).toContain('ping');
  const all = await create(a.token, { url: `${receiver.url}/every-type`, events: types });
  expect(all.status).toBe(201);
  expect(all.body.data.events).toEqual(types);
  const mixed = await create(a.token, { url: `${receiver.url}/star`, events: ['*', ' transfer.failed '] });
  expect(mixed.status).toBe(201);
  expect(mixed.body.data.events).toEqual(['*', 'transfer.failed']);
  const put = await call(gw.url, 'PUT', `/webhook-endpoints/${all.body.data.id}`, { token: a.token, body: { events: ['ping'] } });
  expect([put.status, put.body.data.events]).toEqual([200, ['ping']]);
});

test('a url is stored in its normalised form: trimmed, parsed, without its fragment, on create and update', async () => {
  const host = receiver.url.replace(/^http:\/\//, '');
  const typed: Array<[string, string]> = [
    [`  ${receiver.url}/ok \t`, `${receiver.url}/ok`],
    [`http:/${host}/ok`, `${receiver.url}/ok`],
    [`http:\\\\${host}\\ok`, `${receiver.url}/ok`],
    [`HTTP://${host.toUpperCase()}/ok`, `${receiver.url}/ok`],
    [`${receiver.url}/ok#frag`, `${receiver.url}/ok`],
    [`${receiver.url}/ok?x=1#`, `${receiver.url}/ok?x=1`],
    [`${receiver.url}/a b/../ok`, `${receiver.url}/ok`],
    [`${receiver.url}/caf\u00e9`, `${receiver.url}/caf%C3%A9`],
    // Written without a path, it keeps none (what was given reads back as given); with one, it keeps it.
    [receiver.url, receiver.url],
    [`${receiver.url}/`, `${receiver.url}/`],
    [`${receiver.url}?x=1`, `${receiver.url}?x=1`],
    ['http://127.0.0.1:80/ok', 'http://127.0.0.1/ok'],
  ];
  for (const [url, stored] of typed) {
    const res = await create(a.token, { url });
    expect([url, res.status, res.body.data?.url]).toEqual([url, 201, stored]);
    expect((await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: res.body.data.id } })).url).toBe(stored);
    const put = await call(gw.url, 'PUT', `/webhook-endpoints/${res.body.data.id}`, { token: a.token, body: { url: `${url}`.replace('ok', 'put') } });
    expect([url, put.status, put.body.data?.url]).toEqual([url, 200, stored.replace('ok', 'put')]);
  }
  // What is stored is what is sent to.
  const sent = (await create(a.token, { url: ` HTTP://${host}/normalised#frag ` })).body.data;
  expect((await call(gw.url, 'POST', `/webhook-endpoints/${sent.id}/test`, { token: a.token })).body.data).toMatchObject({ ok: true });
  expect(receiver.requests.at(-1)!.path).toBe('/normalised');
  const bare = (await create(a.token, { url: receiver.url })).body.data;
  expect((await call(gw.url, 'POST', `/webhook-endpoints/${bare.id}/test`, { token: a.token })).body.data).toMatchObject({ ok: true });
  expect(receiver.requests.at(-1)!.path).toBe('/');
});

test.each([
  ['port 0 (nothing can be delivered to it)', 'http://127.0.0.1:0/hook'],
  ['port 0 written long', 'http://127.0.0.1:00000/hook'],
  ['a url of 512 characters that is longer once normalised', `http://127.0.0.1/${'\u00e9'.repeat(495)}`],
  ['a url of only spaces', '   '],
])('create and update refuse %s with 400 on url, writing nothing', async (_name, url) => {
  const before = await gw.env.db.webhookEndpoint.count();
  const res = await create(a.token, { url });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'url' } });
  expect(await gw.env.db.webhookEndpoint.count()).toBe(before);
  const ep = (await create(a.token, { url: `${receiver.url}/kept` })).body.data;
  const put = await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, { token: a.token, body: { url } });
  expect(put.status).toBe(400);
  expect(put.body.error.details.field).toBe('url');
  expect((await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).url).toBe(`${receiver.url}/kept`);
});

test('a url of exactly 512 characters is accepted', async () => {
  const url = `${receiver.url}/${'x'.repeat(512 - receiver.url.length - 1)}`;
  expect(url).toHaveLength(512);
  expect((await create(a.token, { url })).status).toBe(201);
});

test.each([
  'http://10.0.0.1/hook',
  'http://192.168.1.10/hook',
  'http://172.20.0.5:8080/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/hook',
  'http://0.0.0.0:3000/',
  'http://[::1]:3000/',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:10.0.0.1]/',
])('create and update refuse %s (SSRF), writing nothing', async (url) => {
  const before = await gw.env.db.webhookEndpoint.count();
  const res = await create(a.token, { url });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'url' } });
  expect(await gw.env.db.webhookEndpoint.count()).toBe(before);

  const ok = (await create(a.token, { url: `${receiver.url}/ssrf` })).body.data;
  const put = await call(gw.url, 'PUT', `/webhook-endpoints/${ok.id}`, { token: a.token, body: { url } });
  expect(put.status).toBe(400);
  expect((await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ok.id } })).url).toBe(`${receiver.url}/ssrf`);
});

test('API keys, missing and invalid sessions get 401 on every management route', async () => {
  const routes: Array<[string, string, unknown?]> = [
    ['POST', '/webhook-endpoints', { url: `${receiver.url}/k` }],
    ['GET', '/webhook-endpoints'],
    ['PUT', '/webhook-endpoints/1', { active: false }],
    ['DELETE', '/webhook-endpoints/1'],
    ['POST', '/webhook-endpoints/1/test'],
    ['GET', '/webhook-deliveries'],
  ];
  const before = await gw.env.db.webhookEndpoint.count();
  for (const [method, path, body] of routes) {
    for (const token of [a.apiKey, undefined, 'not-a-jwt', `${a.token}x`]) {
      const res = await call(gw.url, method, path, { token, body });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 401, 'unauthorized']);
    }
  }
  expect(await gw.env.db.webhookEndpoint.count()).toBe(before);
});

test("another workspace's endpoint is not found for read, update, delete and test", async () => {
  const mine = (await create(a.token, { url: `${receiver.url}/mine` })).body.data;
  const theirs = await call(gw.url, 'GET', '/webhook-endpoints', { token: b.token });
  expect(theirs.body.data.map((e: { id: number }) => e.id)).not.toContain(mine.id);
  for (const [method, path, body] of [
    ['PUT', `/webhook-endpoints/${mine.id}`, { active: false }],
    ['DELETE', `/webhook-endpoints/${mine.id}`, undefined],
    ['POST', `/webhook-endpoints/${mine.id}/test`, undefined],
  ] as const) {
    const res = await call(gw.url, method, path, { token: b.token, body });
    expect([method, res.status, res.body.error.code]).toEqual([method, 404, 'not_found']);
  }
  expect(await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: mine.id } })).toMatchObject({ active: true });
  for (const id of ['999999', '0', 'abc', '99999999999', '1.5']) {
    expect((await call(gw.url, 'PUT', `/webhook-endpoints/${id}`, { token: a.token, body: { active: false } })).status).toBe(404);
  }
});

test('update changes url, events and active only, and answers 200 with the record', async () => {
  const ep = (await create(a.token, { url: `${receiver.url}/before`, events: ['transfer.completed'] })).body.data;
  const res = await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, {
    token: a.token,
    body: {
      url: `${receiver.url}/after`,
      events: ['verification.verified'],
      active: false,
      id: 777,
      created_at: '2000-01-01T00:00:00.000Z',
      has_secret: false,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({
    id: ep.id,
    url: `${receiver.url}/after`,
    events: ['verification.verified'],
    active: false,
    has_secret: true,
    created_at: ep.created_at,
    disabled_reason: null,
    disabled_at: null,
  });
  expect((await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, { token: a.token, body: { events: [] } })).body.data.events).toEqual(['*']);
  const partial = await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, { token: a.token, body: { active: true } });
  expect(partial.body.data).toMatchObject({ url: `${receiver.url}/after`, active: true });
  const bad = await call(gw.url, 'PUT', `/webhook-endpoints/${ep.id}`, { token: a.token, body: { url: 'not a url', active: false } });
  expect(bad.status).toBe(400);
  expect(await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).toMatchObject({ active: true });
});

test('delete answers 200 {id, deleted: true}; the endpoint is gone', async () => {
  const ep = (await create(a.token, { url: `${receiver.url}/gone` })).body.data;
  const res = await call(gw.url, 'DELETE', `/webhook-endpoints/${ep.id}`, { token: a.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ id: ep.id, deleted: true });
  const list = await call(gw.url, 'GET', '/webhook-endpoints', { token: a.token });
  expect(list.body.data.map((e: { id: number }) => e.id)).not.toContain(ep.id);
  expect((await call(gw.url, 'DELETE', `/webhook-endpoints/${ep.id}`, { token: a.token })).status).toBe(404);
});

test('test sends a signed ping and answers with what the receiver said', async () => {
  const ep = (await create(a.token, { url: `${receiver.url}/ping`, events: ['transfer.completed'], active: false })).body.data;
  const res = await call(gw.url, 'POST', `/webhook-endpoints/${ep.id}/test`, { token: a.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ delivery_id: expect.any(Number), endpoint_id: ep.id, ok: true, status_code: 200, attempts: 1, error: null });
  expect(res.body.data.delivery_id).toBeGreaterThan(0);

  const pings = receiver.requests.filter((r) => r.path === '/ping');
  expect(pings).toHaveLength(1);
  const body = JSON.parse(pings[0]!.rawBody.toString());
  expect(body).toEqual({
    id: pings[0]!.headers['x-cowrie-delivery'],
    event: 'ping',
    created_at: expect.stringMatching(ISO),
    data: { message: expect.any(String), endpoint_id: ep.id },
    livemode: true,
  });
  expect(pings[0]!.headers['x-cowrie-event']).toBe('ping');
  expect(verifyWebhookSignature({ rawBody: pings[0]!.rawBody, header: pings[0]!.headers['x-cowrie-signature'] as string, secret: ep.secret })).toBe(true);

  const log = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${ep.id}`, { token: a.token });
  expect(log.body.data).toEqual([
    {
      id: res.body.data.delivery_id,
      deliveryId: body.id,
      dispatch: 0,
      endpointId: ep.id,
      event: 'ping',
      payload: body,
      statusCode: 200,
      attempts: 1,
      ok: 1,
      error: null,
      createdAt: expect.stringMatching(ISO),
      livemode: true,
    },
  ]);
});

test('a ping to a failing receiver reports the final outcome after 3 attempts', async () => {
  const ep = (await create(a.token, { url: `${failing.url}/down` })).body.data;
  const res = await call(gw.url, 'POST', `/webhook-endpoints/${ep.id}/test`, { token: a.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ endpoint_id: ep.id, ok: false, status_code: 500, attempts: 3, error: 'HTTP 500' });
  expect(failing.requests.filter((r) => r.path === '/down')).toHaveLength(3);
});

test("the delivery log shows only the signed-in workspace's rows, newest first, filtered by endpoint", async () => {
  const epA = (await create(a.token, { url: `${receiver.url}/log-a` })).body.data;
  const epB = (await create(b.token, { url: `${receiver.url}/log-b` })).body.data;
  const first = (await call(gw.url, 'POST', `/webhook-endpoints/${epA.id}/test`, { token: a.token })).body.data.delivery_id;
  const second = (await call(gw.url, 'POST', `/webhook-endpoints/${epA.id}/test`, { token: a.token })).body.data.delivery_id;
  const ofB = (await call(gw.url, 'POST', `/webhook-endpoints/${epB.id}/test`, { token: b.token })).body.data.delivery_id;

  const logA = (await call(gw.url, 'GET', '/webhook-deliveries', { token: a.token })).body.data;
  const idsA = logA.map((r: { id: number }) => r.id);
  expect(idsA).toEqual(expect.arrayContaining([first, second]));
  expect(idsA).not.toContain(ofB);
  expect(idsA.indexOf(second)).toBeLessThan(idsA.indexOf(first));
  expect([...idsA].sort((x: number, y: number) => y - x)).toEqual(idsA);
  expect(logA.every((r: { endpointId: number }) => r.endpointId !== epB.id)).toBe(true);

  const filtered = (await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${epA.id}`, { token: a.token })).body.data;
  expect(filtered.map((r: { id: number }) => r.id)).toEqual([second, first]);
  const peek = await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${epA.id}`, { token: b.token });
  expect(peek.status).toBe(200);
  expect(peek.body.data).toEqual([]);
  const ownB = (await call(gw.url, 'GET', '/webhook-deliveries', { token: b.token })).body.data;
  expect(ownB.map((r: { id: number }) => r.id)).toEqual([ofB]);
});

test('the delivery log limit defaults to 50 and is clamped to 200', async () => {
  const ep = (await create(a.token, { url: `${receiver.url}/many` })).body.data;
  const now = Date.now();
  await gw.env.db.webhookDelivery.createMany({
    data: Array.from({ length: 210 }, (_, i) => ({
      deliveryId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      workspaceId: a.workspaceId,
      endpointId: ep.id,
      event: 'transfer.completed',
      payload: {
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        event: 'transfer.completed',
        created_at: new Date(now).toISOString(),
        data: { i },
      },
      statusCode: 200,
      attempts: 1,
      ok: 1,
      completedAt: new Date(now),
    })),
  });
  const get = (q: string) => call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${ep.id}${q}`, { token: a.token });
  expect((await get('')).body.data).toHaveLength(50);
  expect((await get('&limit=1000')).body.data).toHaveLength(200);
  const three = (await get('&limit=3')).body.data;
  expect(three.map((r: { payload: { data: { i: number } } }) => r.payload.data.i)).toEqual([209, 208, 207]);
  expect((await get('&limit=0')).body.data).toHaveLength(1);
  for (const bad of ['&limit=abc', '&limit=1.5', '&endpoint_id=abc']) {
    const res = await call(gw.url, 'GET', `/webhook-deliveries?${bad.slice(1)}`, { token: a.token });
    expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_request']);
  }
});

test('an event recorded by another module reaches the endpoint and its log', async () => {
  const ep = (await create(a.token, { url: `${receiver.url}/outbox`, events: ['transfer.completed'] })).body.data;
  await gw.env.db.outboxEvent.create({ data: { workspaceId: a.workspaceId, event: 'transfer.completed', payload: { reference: 'snd_1' } } });
  const rows = await waitFor(async () => {
    const log = (await call(gw.url, 'GET', `/webhook-deliveries?endpoint_id=${ep.id}`, { token: a.token })).body.data;
    return log.length ? log : null;
  });
  expect(rows[0]).toMatchObject({
    endpointId: ep.id,
    event: 'transfer.completed',
    ok: 1,
    attempts: 1,
    statusCode: 200,
    payload: { event: 'transfer.completed', data: { reference: 'snd_1' } },
  });
  const got = receiver.requests.filter((r) => r.path === '/outbox');
  expect(got).toHaveLength(1);
  expect(verifyWebhookSignature({ rawBody: got[0]!.rawBody, header: got[0]!.headers['x-cowrie-signature'] as string, secret: ep.secret })).toBe(true);
});

// Risk: an answer that carries a secret (an API key, a webhook signing
// secret, a one-time password, a session token) kept by a browser's or a
// proxy's cache, first time or on an Idempotency-Key replay; and a route
// spelled in another case (/API-KEYS/5/ROLL) that Express would serve but the
// Idempotency-Key layer would not recognise, so its early checks are skipped
// and the new key is stored unsealed.
import { rememberSecret } from '@cowrie/testing';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let a: { workspaceId: number; token: string };

beforeAll(async () => {
  gw = await startTestGateway({ DASHBOARD_RATE_LIMIT: '10000', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  a = await signInNewWorkspace(gw, 'Secret answers');
});
afterAll(() => gw?.close());

const post = (path: string, body: unknown, idempotencyKey?: string) =>
  call(gw.url, 'POST', path, { token: a.token, body, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} });

async function newKeyId(name: string): Promise<number> {
  const created = await post('/api-keys', { name, scopes: ['read'] });
  expect(created.status).toBe(201);
  return created.body.data.id as number;
}

async function newEndpointId(): Promise<number> {
  const created = await post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' });
  expect(created.status).toBe(201);
  return created.body.data.id as number;
}

describe('Cache-Control: no-store on every answer that carries a secret, replays included', () => {
  test.each([
    ['POST /api-keys (the key)', async () => ({ path: '/api-keys', body: { name: 'Cached?', scopes: ['read'] } })],
    ['POST /api-keys/:id/roll (the new key)', async () => ({ path: `/api-keys/${await newKeyId('Rolled, cached?')}/roll`, body: { grace_seconds: 60 } })],
    ['POST /webhook-endpoints/:id/roll-secret (the new secret)', async () => ({ path: `/webhook-endpoints/${await newEndpointId()}/roll-secret`, body: {} })],
    ['POST /users (the one-time password)', async () => ({ path: '/users', body: { email: 'cached.invite@example.com', role: 'member' } })],
  ])('%s', async (_name, make) => {
    const { path, body } = await make();
    const first = await post(path, body, `no-store ${path}`);
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const replay = await post(path, body, `no-store ${path}`);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(replay.headers.get('cache-control')).toBe('no-store');
  });

  test('POST /webhook-endpoints (the signing secret), POST /auth/login and POST /auth/password (a session token)', async () => {
    const created = await post('/webhook-endpoints', { url: 'http://127.0.0.1:9/created' });
    expect([created.status, created.headers.get('cache-control')]).toEqual([201, 'no-store']);

    const invited = await post('/users', { email: 'cached.session@example.com', role: 'admin' });
    const login = await call(gw.url, 'POST', '/auth/login', { body: { email: 'cached.session@example.com', password: invited.body.data.one_time_password } });
    expect([login.status, login.headers.get('cache-control')]).toEqual([200, 'no-store']);
    rememberSecret('a passphrase nobody caches');
    const changed = await call(gw.url, 'POST', '/auth/password', {
      token: login.body.data.token,
      body: { current_password: invited.body.data.one_time_password, new_password: 'a passphrase nobody caches' },
    });
    expect([changed.status, changed.headers.get('cache-control')]).toEqual([200, 'no-store']);
  });
});

describe('routes are matched in their own case only', () => {
  test.each([
    ['/API-KEYS/:id/ROLL', (id: number) => `/API-KEYS/${id}/ROLL`],
    ['/Api-Keys/:id/roll', (id: number) => `/Api-Keys/${id}/roll`],
    ['/api-keys/:id/Roll', (id: number) => `/api-keys/${id}/Roll`],
  ])('%s with an Idempotency-Key is 404: nothing rolled, nothing stored', async (_name, pathOf) => {
    const name = `Case ${pathOf(0)}`;
    const id = await newKeyId(name);
    const idempotencyKey = `case ${pathOf(id)}`;
    const res = await post(pathOf(id), { grace_seconds: 60 }, idempotencyKey);
    expect([res.status, res.body?.error?.code]).toEqual([404, 'not_found']);
    expect(await gw.env.db.apiKey.count({ where: { workspaceId: a.workspaceId, name } })).toBe(1);
    expect(await gw.env.db.idempotencyRecord.count({ where: { workspaceId: a.workspaceId, key: idempotencyKey } })).toBe(0);
  });

  test('/WEBHOOK-ENDPOINTS/:id/ROLL-SECRET and /USERS are 404 too', async () => {
    const endpointId = await newEndpointId();
    const before = await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect((await post(`/WEBHOOK-ENDPOINTS/${endpointId}/ROLL-SECRET`, {}, 'case roll-secret')).status).toBe(404);
    expect((await gw.env.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } })).secretEncrypted).toBe(before.secretEncrypted);
    expect((await post('/USERS', { email: 'upper.case@example.com', role: 'member' }, 'case users')).status).toBe(404);
    expect(await gw.env.db.dashboardUser.count({ where: { email: 'upper.case@example.com' } })).toBe(0);
  });

  test('/v1 in another case is 404 as well', async () => {
    const { apiKey } = await signInNewWorkspace(gw, 'Secret answers /V1');
    expect((await call(gw.url, 'GET', '/V1/channels', { token: apiKey })).status).toBe(404);
    expect((await call(gw.url, 'GET', '/v1/CHANNELS', { token: apiKey })).status).toBe(404);
    expect((await call(gw.url, 'GET', '/v1/channels', { token: apiKey })).status).toBe(200);
  });
});

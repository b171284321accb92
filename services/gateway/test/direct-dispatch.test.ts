// Risk: a /v1 request dispatched directly (directDispatch: the route found
// from the registry's table, its chain run without express's router) is
// answered otherwise than express's router answers it: another status or
// envelope for a trailing slash, a path in another case, an unknown route or
// method, a param, a broken or oversized body, a test helper to a live key;
// or a request's bookkeeping (metric label, log line) goes missing.
import { createWorkspaceWithKey, listenGateway } from '@cowrie/testing';
import { createApp } from '../src/app';
import { closeGatewayDeps, createGatewayDeps } from '../src/deps';
import { call, startTestGateway } from '../testing';

let direct: Awaited<ReturnType<typeof startTestGateway>>;
let viaExpress: Awaited<ReturnType<typeof listenGateway>>;
let live: string;
let test_: string;

beforeAll(async () => {
  direct = await startTestGateway({ BODY_LIMIT: '2kb' });
  // The same database and Redis, /v1 through express's router as before.
  viaExpress = await listenGateway(direct.env, {
    createDeps: (config, logger) => createGatewayDeps(config, logger),
    createApp: (deps) => createApp(deps, { routeV1ThroughExpress: true }),
    closeDeps: closeGatewayDeps,
  });
  live = (await createWorkspaceWithKey(direct.env.db)).key;
  test_ = (await createWorkspaceWithKey(direct.env.db, { mode: 'test' })).key;
});
afterAll(async () => {
  await viaExpress.close();
  await direct.close();
});

const REFERENCE = '0b6f7c1e-8a55-4b8e-9d44-3f1f0d1b2c3a';

type Case = [name: string, method: string, path: string, opts: { key?: 'live' | 'test'; body?: unknown; rawBody?: string; headers?: Record<string, string> }];

const cases: Case[] = [
  ['a read', 'GET', '/v1/channels', { key: 'live' }],
  ['a trailing slash', 'GET', '/v1/channels/', { key: 'live' }],
  ['a query string', 'GET', '/v1/channels?x=1', { key: 'live' }],
  ['a path in another case', 'GET', '/v1/Channels', { key: 'live' }],
  ['a prefix in another case', 'GET', '/V1/channels', { key: 'live' }],
  ['a doubled slash', 'GET', '/v1//channels', { key: 'live' }],
  ['an unknown route', 'GET', '/v1/nope', { key: 'live' }],
  ['a method the path has no route for', 'DELETE', '/v1/channels', { key: 'live' }],
  ['HEAD', 'HEAD', '/v1/channels', { key: 'live' }],
  ['no key', 'GET', '/v1/channels', {}],
  ['a made-up key', 'GET', '/v1/channels', { headers: { authorization: 'Bearer ck_live_nope' } }],
  ['the reference document', 'GET', '/v1/openapi.json', {}],
  ['a param', 'GET', `/v1/verifications/${REFERENCE}`, { key: 'live' }],
  ['a param that is no reference', 'GET', '/v1/verifications/not-a-reference', { key: 'live' }],
  ['an encoded param', 'GET', '/v1/verifications/%7Bx%7D', { key: 'live' }],
  ['a param that does not decode', 'GET', '/v1/verifications/%E0%A4%A', { key: 'live' }],
  ['a check of an unknown verification', 'POST', `/v1/verifications/${REFERENCE}/check`, { key: 'live', body: { code: '1234' } }],
  ['a body the schema refuses', 'POST', `/v1/verifications/${REFERENCE}/check`, { key: 'live', body: { code: 12 } }],
  ['broken JSON', 'POST', `/v1/verifications/${REFERENCE}/check`, { key: 'live', rawBody: '{"code": ' }],
  ['a body over the limit', 'POST', `/v1/verifications/${REFERENCE}/check`, { key: 'live', body: { code: 'x'.repeat(4096) } }],
  ['a body of another type', 'POST', `/v1/verifications/${REFERENCE}/check`, { key: 'live', rawBody: 'code=1234', headers: { 'content-type': 'text/plain' } }],
  ['a route that is not there yet', 'POST', '/v1/cards', { key: 'live', body: {} }],
  ['a test helper to a live key', 'POST', '/v1/test_helpers/webhooks/trigger', { key: 'live', body: {} }],
  ['a test helper to a test key', 'POST', '/v1/test_helpers/webhooks/trigger', { key: 'test', body: {} }],
];

/** What a client sees of an answer, less what differs between any two requests (ids, the budget left). */
async function seen(base: string, method: string, path: string, opts: Case[3]) {
  const token = opts.key === 'live' ? live : opts.key === 'test' ? test_ : undefined;
  const res = await call(base, method, path, { token, body: opts.body, rawBody: opts.rawBody, headers: opts.headers });
  const id = res.headers.get('x-request-id');
  const body = JSON.parse(JSON.stringify(res.body ?? null).replaceAll(id ?? '\u0000', '<request id>')) as unknown;
  const headers = Object.fromEntries(
    [...res.headers.entries()]
      .filter(([name]) => !['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'keep-alive', 'connection'].includes(name))
      // The document's length differs by nothing, a body's by its request id: the same length either way.
      .map(([name, value]) => [name, name === 'content-length' ? 'n' : value]),
  );
  return { status: res.status, headers, body, requestIdHeader: id !== null };
}

test.each(cases)('%s: the same answer as through express’s router', async (_name, method, path, opts) => {
  const expected = await seen(viaExpress.url, method, path, opts);
  const got = await seen(direct.url, method, path, opts);
  expect(got).toEqual(expected);
  expect(got.requestIdHeader).toBe(true);
});

test('a directly dispatched request keeps its metric label and its log line', async () => {
  const res = await call(direct.url, 'GET', `/v1/verifications/${REFERENCE}`, { token: live });
  expect(res.status).toBe(404);
  // Both are written when the response finishes, which may be just after the client has it.
  const logged = () => direct.env.logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === res.body.request_id && l.msg === 'request');
  for (let i = 0; i < 50 && !logged(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(logged()).toMatchObject({ path: `/v1/verifications/${REFERENCE}`, status: 404, apiKeyId: expect.any(Number) });
  const metrics = await direct.deps.metrics.registry.metrics();
  expect(metrics).toMatch(/cowrie_http_requests_total\{[^}]*route="\/v1\/verifications\/:reference"[^}]*status="404"/);
});

// Risk: an unknown route's 404 names another path than the one asked for
// (the mount's prefix dropped: `GET /nope` for `GET /v1/nope`, a test helper
// asked with a live key named without its `/v1`), or carries the query string,
// whether /v1 is dispatched directly or through express's router.
import { createWorkspaceWithKey, listenGateway } from '@cowrie/testing';
import { createApp } from '../src/app';
import { closeGatewayDeps, createGatewayDeps } from '../src/deps';
import { call, startTestGateway } from '../testing';

let direct: Awaited<ReturnType<typeof startTestGateway>>;
let viaExpress: Awaited<ReturnType<typeof listenGateway>>;
let live: string;

beforeAll(async () => {
  direct = await startTestGateway();
  viaExpress = await listenGateway(direct.env, {
    createDeps: (config, logger) => createGatewayDeps(config, logger),
    createApp: (deps) => createApp(deps, { routeV1ThroughExpress: true }),
    closeDeps: closeGatewayDeps,
  });
  live = (await createWorkspaceWithKey(direct.env.db)).key;
});
afterAll(async () => {
  await viaExpress.close();
  await direct.close();
});

const REFERENCE = '0b6f7c1e-8a55-4b8e-9d44-3f1f0d1b2c3a';

test.each([
  ['GET', '/v1/nope', 'live key', 'No route for GET /v1/nope'],
  ['GET', '/v1/nope?limit=1&cursor=x', 'live key', 'No route for GET /v1/nope'],
  ['DELETE', '/v1/channels', 'live key', 'No route for DELETE /v1/channels'],
  ['GET', `/v1/test_helpers/verifications/${REFERENCE}/code`, 'live key', `No route for GET /v1/test_helpers/verifications/${REFERENCE}/code`],
  ['POST', '/v1/test_helpers/webhooks/trigger', 'live key', 'No route for POST /v1/test_helpers/webhooks/trigger'],
  ['GET', '/nope?x=1', 'no key', 'No route for GET /nope'],
  ['GET', '/dashboard/assets/nope.js', 'no key', 'No route for GET /dashboard/assets/nope.js'],
] as const)('%s %s (%s): 404 not_found naming the whole path asked for, without its query', async (method, path, as, message) => {
  for (const base of [direct.url, viaExpress.url]) {
    const res = await call(base, method, path, { token: as === 'live key' ? live : undefined, body: method === 'POST' ? {} : undefined });
    expect([base, res.status, res.body.error.code, res.body.error.message]).toEqual([base, 404, 'not_found', message]);
  }
});

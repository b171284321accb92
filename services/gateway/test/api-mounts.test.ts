// Risk: the OpenAPI document (and so the SDK, generated from API_MOUNTS with
// nothing started) drifts from the routes the gateway really serves: a route
// mounted but missing from the list, one listed but never mounted, or the two
// in another order (the document's path order). The app is built, not run.
import { loadConfig } from '@cowrie/core';
import { API_MOUNTS, apiRoutes } from '../src/api';
import { buildOpenApiDocument, closeGatewayDeps, createApp, createGatewayDeps, routesOf } from '../src';

test('API_MOUNTS lists exactly the routes createApp registers, in its order, as the same specs', async () => {
  const deps = createGatewayDeps(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }));
  try {
    const mounted = routesOf(createApp(deps)).routes;
    const listed = apiRoutes();
    const key = (r: { method: string; fullPath: string; operationId: string }) => `${r.method.toUpperCase()} ${r.fullPath} ${r.operationId}`;
    expect(listed.map(key)).toEqual(mounted.map(key));
    // The same spec objects, not look-alikes: whatever a spec says (auth, schemas, answers) the document says.
    listed.forEach((route, i) => expect({ ...route }).toStrictEqual({ ...mounted[i] }));
    expect(JSON.stringify(buildOpenApiDocument(listed))).toBe(JSON.stringify(buildOpenApiDocument(mounted)));
  } finally {
    await closeGatewayDeps(deps).catch(() => undefined);
  }
});

test('every domain mount is named once', () => {
  const specs = API_MOUNTS.map((m) => m.specs);
  expect(new Set(specs).size).toBe(specs.length);
});

// Risk: a route declared with path syntax the registry's own matching (metric
// labels, the Idempotency-Key layer's lookup, the direct /v1 dispatch) reads
// differently from express's router, so one request is two routes.
import express from 'express';
import { z } from 'zod';
import { RouteRegistry } from '../src/http/route-registry';

function declare(path: string) {
  const registry = new RouteRegistry();
  registry.on(express.Router(), '/v1').route(
    {
      method: 'get',
      path,
      operationId: 'getThing',
      summary: 'A thing',
      tag: 'Catalog',
      auth: { kind: 'api_key', scope: null },
      responses: { 200: { description: 'The thing', data: z.object({}) } },
    },
    () => undefined,
  );
  return registry;
}

test('literal segments and :params are routes, matched as express matches them', () => {
  const registry = declare('/things/:reference/v1.json');
  expect(registry.templateFor('GET', '/v1/things/abc/v1.json')).toBe('/v1/things/:reference/v1.json');
  expect(registry.templateFor('GET', '/v1/things/abc/v1.json/')).toBe('/v1/things/:reference/v1.json');
  expect(registry.templateFor('GET', '/v1/things/abc/v1xjson')).toBeUndefined();
  expect(registry.templateFor('GET', '/v1/THINGS/abc/v1.json')).toBeUndefined();
});

test.each(['/things/*rest', '/things{/:id}', '/things/:id?', '/(things)'])('a route path with other syntax (%s) is refused when declared', (path) => {
  expect(() => declare(path)).toThrow('only literal segments and :params are supported');
});

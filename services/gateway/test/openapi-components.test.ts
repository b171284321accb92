// Risk: a named schema that a request reads differently from how a response
// writes it (a default, a coercion, a transform) published as one component,
// so generated clients get one of the two sides wrong; or components that no
// operation uses. The document is built from a registry of routes made here.
import express from 'express';
import { z } from 'zod';
import { RouteRegistry } from '../src/http/route-registry';
import { buildOpenApiDocument } from '../src/openapi/document';
import { named } from '../src/openapi/schemas';

function documentOf(route: { body: z.ZodType; data: z.ZodType }) {
  const registry = new RouteRegistry();
  registry.on(express.Router(), '/v1').route(
    {
      method: 'post',
      path: '/things',
      operationId: 'createThing',
      summary: 'Make a thing',
      tag: 'Catalog',
      auth: { kind: 'api_key', scope: null },
      request: { body: route.body },
      responses: { 201: { description: 'The thing', data: route.data } },
    },
    () => undefined,
  );
  return buildOpenApiDocument(registry.routes);
}

test('a schema read the same way by requests and responses is one component both refer to', () => {
  const ZColour = named('TestColour', z.enum(['red', 'green']));
  const ZThingRequest = named('TestThingRequest', z.object({ colour: ZColour }));
  const ZThing = named('TestThing', z.object({ colour: ZColour }));
  named('TestUnused', z.object({ unused: z.string() }));
  const doc = documentOf({ body: ZThingRequest, data: ZThing });
  const op = doc.paths['/v1/things']!.post!;
  expect(op).toMatchObject({
    requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/TestThingRequest' } } } },
    responses: { 201: { content: { 'application/json': { schema: { properties: { data: { $ref: '#/components/schemas/TestThing' } } } } } } },
  });
  const colour = { $ref: '#/components/schemas/TestColour' };
  expect(doc.components.schemas).toMatchObject({
    TestColour: { type: 'string', enum: ['red', 'green'] },
    // A request may carry fields it ignores; a response has no others.
    TestThingRequest: { type: 'object', properties: { colour }, required: ['colour'] },
    TestThing: { type: 'object', properties: { colour }, required: ['colour'], additionalProperties: false },
  });
  expect(doc.components.schemas.TestThingRequest).not.toHaveProperty('additionalProperties');
  // Named, but no operation or event uses it.
  expect(doc.components.schemas).not.toHaveProperty('TestUnused');
});

test('a schema that requests read differently from how responses write it needs a name per side', () => {
  const ZCode = named(
    'TestCode',
    z
      .string()
      .default('ngn')
      .transform((code) => code.toUpperCase()),
  );
  expect(() => documentOf({ body: z.object({ code: ZCode }), data: z.object({ code: ZCode }) })).toThrow(
    'schema TestCode reads differently in requests than in responses',
  );
});

test('a name is given to one schema, once', () => {
  const ZOne = named('TestOne', z.string());
  expect(named('TestOne', ZOne)).toBe(ZOne);
  expect(() => named('TestOne', z.string())).toThrow('two schemas are named TestOne');
  expect(() => named('TestOther', ZOne)).toThrow('schema TestOne cannot also be named TestOther');
});

// Risk: the API document's examples mislead: a /v1 operation or a webhook
// event without one (a route added later, by anyone, included), or an example
// its own schema refuses (a field renamed under it), so a client copies a
// request the API rejects or codes against an answer it never sends. Every
// example of the document the gateway builds is validated here against the
// schema the document gives it.
import { loadConfig } from '@cowrie/core';
import {
  buildOpenApiDocument,
  closeGatewayDeps,
  createApp,
  createGatewayDeps,
  OPERATION_EXAMPLES,
  routesOf,
  WEBHOOK_EVENTS,
  WEBHOOK_EXAMPLES,
} from '@cowrie/gateway';
import { OpenApiContract } from './openapi-contract';

type Json = Record<string, any>;

let contract: OpenApiContract;
let operations: { method: string; path: string; op: Json }[];

beforeAll(async () => {
  // Building the app registers every route; nothing is called, so no database is needed.
  const deps = createGatewayDeps(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }));
  try {
    contract = new OpenApiContract(JSON.parse(JSON.stringify(buildOpenApiDocument(routesOf(createApp(deps)).routes))));
  } finally {
    await closeGatewayDeps(deps).catch(() => undefined);
  }
  operations = Object.entries<Json>(contract.doc.paths).flatMap(([path, ops]) => Object.entries<Json>(ops).map(([method, op]) => ({ method, path, op })));
});

/** The /v1 operations a client calls with an API key (the document itself is its own example). */
const v1Operations = () => operations.filter((o) => o.path.startsWith('/v1/') && o.op.operationId !== 'getOpenApiDocument');

/** The places of a document that carry an example: where, the example, and the schema it must match. */
function examplesOf(doc: Json): { where: string; example: unknown; schema: unknown }[] {
  const out: { where: string; example: unknown; schema: unknown }[] = [];
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const at = `${method.toUpperCase()} ${path}`;
      const body = op.requestBody?.content?.['application/json'];
      if (body && 'example' in body) out.push({ where: `${at} request body`, example: body.example, schema: body.schema });
      for (const p of op.parameters ?? []) if ('example' in p) out.push({ where: `${at} ${p.in} parameter ${p.name}`, example: p.example, schema: p.schema });
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const json = response.content?.['application/json'];
        if (json && 'example' in json) out.push({ where: `${at} ${status}`, example: json.example, schema: json.schema });
      }
    }
  }
  for (const [event, hook] of Object.entries<Json>(doc.webhooks)) {
    const body = hook.post.requestBody.content['application/json'];
    if ('example' in body) out.push({ where: `webhook ${event}`, example: body.example, schema: body.schema });
  }
  return out;
}

/** The examples `examplesOf` finds that their schema refuses, with ajv's reasons. */
function invalidExamples(doc: Json): string[] {
  return examplesOf(doc).flatMap(({ where, example, schema }) => {
    const validate = contract.ajv.compile(contract.resolve(schema));
    return validate(example) ? [] : [`${where}: ${contract.ajv.errorsText(validate.errors)}`];
  });
}

test('every /v1 operation has a request example (its body and path parameters) and an example of each answer it documents', () => {
  const missing: string[] = [];
  for (const { method, path, op } of v1Operations()) {
    const at = `${method.toUpperCase()} ${path}`;
    const body = op.requestBody?.content?.['application/json'];
    if (body && !('example' in body)) missing.push(`${at}: request body`);
    for (const p of contract.resolve(op.parameters ?? []) as Json[]) {
      if (p.in === 'path' && !('example' in p)) missing.push(`${at}: path parameter ${p.name}`);
    }
    for (const [status, response] of Object.entries<Json>(op.responses)) {
      if (!('example' in (response.content?.['application/json'] ?? {}))) missing.push(`${at}: ${status} answer`);
    }
  }
  // If this fails, give the operation its examples in services/gateway/src/openapi/examples.ts.
  expect(missing).toEqual([]);
  expect(v1Operations().length).toBeGreaterThanOrEqual(25);
});

test('every webhook event has an example delivery', () => {
  const events = Object.keys(contract.doc.webhooks);
  expect(events.length).toBe(WEBHOOK_EVENTS.length);
  expect(events.filter((event) => !('example' in contract.doc.webhooks[event].post.requestBody.content['application/json']))).toEqual([]);
});

test('every example validates against its schema', () => {
  const all = examplesOf(contract.doc);
  // Bodies, parameters, answers (successes and errors) and webhook deliveries.
  expect(all.length).toBeGreaterThan(150);
  expect(invalidExamples(contract.doc)).toEqual([]);
});

test('the validation refuses an example its schema does not describe', () => {
  const doc = JSON.parse(JSON.stringify(contract.doc));
  const transfer = doc.paths['/v1/transfers'].post;
  transfer.requestBody.content['application/json'].example = { currency: 'NGN', amount: 1500 };
  transfer.responses['201'].content['application/json'].example.data.status = 'sent';
  doc.webhooks['collection.successful'].post.requestBody.content['application/json'].example.data.amount = 700;
  expect(invalidExamples(doc)).toEqual([
    expect.stringMatching(/^POST \/v1\/transfers request body: .*account_number/),
    expect.stringMatching(/^POST \/v1\/transfers 201: .*status/),
    expect.stringMatching(/^webhook collection\.successful: .*amount/),
  ]);
});

test('the examples table names only operations and events that exist', () => {
  const ids = new Set(operations.map((o) => o.op.operationId));
  expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !ids.has(id))).toEqual([]);
  expect(Object.keys(WEBHOOK_EXAMPLES).filter((event) => !WEBHOOK_EVENTS.some((e) => e.name === event))).toEqual([]);
});

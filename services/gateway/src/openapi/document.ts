import { z } from 'zod';
import { ERROR_STATUS } from '@cowrie/core';
import type { RegisteredRoute, RouteRegistry } from '../http/route-registry';

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, as the request reads it or the response writes it. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

const toOpenApiPath = (fullPath: string) => fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParamNames = (fullPath: string) => [...fullPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request: a field is missing or invalid (details.field names it)',
  401: 'unauthorized: missing, malformed, unknown or revoked credential',
  403: 'insufficient_scope: the API key lacks the required scope',
  404: 'not_found',
  409: 'idempotency_conflict: the Idempotency-Key was reused with a different request, or is still in progress',
  429: 'rate_limited: request budget (per API key on /v1, per session on dashboard routes) or another limit exceeded (details.retry_after_seconds)',
  501: 'coming_soon',
  502: 'provider_error: rail failure',
  503: 'provider_error: rail not configured or unavailable',
  504: 'provider_error: rail timeout',
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

function parametersOf(route: RegisteredRoute): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const names = pathParamNames(route.fullPath);
  const params = route.request?.params ? jsonSchemaOf(route.request.params, 'input') : undefined;
  const paramProps = (params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of names) {
    if (!paramProps[name]) throw new Error(`${route.method.toUpperCase()} ${route.fullPath}: path parameter ${name} has no schema in request.params`);
    parameters.push({ name, in: 'path', required: true, schema: paramProps[name] });
  }
  if (route.request?.query) {
    const query = jsonSchemaOf(route.request.query, 'input');
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: required.has(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  if (route.auth.kind === 'api_key' && route.method === 'post') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (route.auth.kind === 'session') parameters.push({ $ref: '#/components/parameters/CowrieMode' });
  return parameters;
}

function responsesOf(route: RegisteredRoute): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  const v1 = route.auth.kind === 'api_key';
  // API keys and dashboard sessions both have a request budget, and its headers.
  const budgeted = route.auth.kind !== 'none';
  const headers = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...(budgeted ? RATE_LIMIT_HEADERS : {}) };
  const errors = new Set<number>();
  for (const [status, response] of Object.entries(route.responses)) {
    const code = Number(status);
    if (code >= 400) {
      errors.add(code);
      continue;
    }
    if (response.raw) {
      responses[status] = {
        description: response.description,
        content: { 'application/json': { schema: response.data ? jsonSchemaOf(response.data, 'output') : { type: 'object' } } },
      };
      continue;
    }
    responses[status] = {
      description: response.description,
      headers,
      content: response.data
        ? {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data', 'meta'],
                properties: {
                  data: jsonSchemaOf(response.data, 'output'),
                  meta: response.meta ? jsonSchemaOf(response.meta, 'output') : { $ref: '#/components/schemas/ResponseMeta' },
                },
                additionalProperties: false,
              },
            },
          }
        : undefined,
    };
  }
  // The errors every route of its kind can answer.
  if (route.auth.kind !== 'none') errors.add(401);
  if (route.auth.kind !== 'none') errors.add(429);
  if (route.auth.kind === 'api_key' && route.auth.scope) errors.add(403);
  if (route.request?.body || route.request?.query || route.request?.params) errors.add(400);
  if (v1 && route.method === 'post') errors.add(409);
  for (const code of [...errors].sort()) {
    const own = route.responses[code]?.description;
    responses[String(code)] = {
      description: own ?? ERROR_DESCRIPTIONS[code] ?? 'Error',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function operationOf(route: RegisteredRoute): JsonSchema {
  const auth = route.auth;
  const security = auth.kind === 'api_key' ? [{ apiKey: [] }] : auth.kind === 'session' ? [{ session: [] }] : [];
  const scopeLine =
    auth.kind === 'api_key'
      ? auth.scope
        ? `Scope: \`${auth.scope}\`.`
        : 'Any valid API key.'
      : auth.kind === 'session'
        ? 'Dashboard session (POST /auth/login).'
        : 'No authentication.';
  const operation: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, scopeLine].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    security,
    parameters: parametersOf(route),
    responses: responsesOf(route),
  };
  if (auth.kind === 'api_key') operation['x-cowrie-scope'] = auth.scope;
  if (route.request?.body) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.request.body, 'input') } } };
  }
  return operation;
}

export interface OpenApiOptions {
  version?: string;
}

/**
 * The OpenAPI 3.1 document of every route in the registry, built from the
 * same zod schemas that validate the requests (io: input) and describe the
 * responses (io: output).
 */
export function buildOpenApiDocument(registry: RouteRegistry, options: OpenApiOptions = {}) {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of registry.routes) {
    const key = toOpenApiPath(route.fullPath);
    (paths[key] ??= {})[route.method] = operationOf(route);
  }
  const tags = [...new Set(registry.routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Cowrie API',
      version: options.version ?? '1.0.0',
      description: [
        'Payouts, deposits, contact verification and outbound webhooks.',
        'Success bodies are `{data, meta: {request_id}}`; errors are `{error: {code, message, details?}, request_id}`.',
        'Send `Idempotency-Key` on POST requests to retry them safely; clients must ignore unknown response fields and event names.',
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This deployment' }],
    tags,
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: `Authorization: Bearer <API key>` (keys are created with `npx cowrie key create`).' },
        session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session token from POST /auth/login.' },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Replays the stored response of the first successful request with this key (24 hours, per workspace); a different request with the same key is 409.',
          schema: { type: 'string', maxLength: 254 },
        },
        CowrieMode: {
          name: 'Cowrie-Mode',
          in: 'header',
          required: false,
          description:
            'Which data of the workspace a dashboard request manages: `live` (the default) or `test` (what test API keys act on). Anything else is 400 invalid_request.',
          schema: { type: 'string', enum: ['live', 'test'], default: 'live' },
        },
      },
      headers: {
        'X-Request-Id': { description: 'UUID of this request, also in the body', schema: { type: 'string', format: 'uuid' } },
        'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left after this one, never below 0', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Window end as a Unix timestamp in seconds', schema: { type: 'integer' } },
      },
      schemas: {
        ResponseMeta: {
          type: 'object',
          required: ['request_id'],
          properties: { request_id: { type: 'string', format: 'uuid' } },
          additionalProperties: false,
        },
        Error: {
          type: 'object',
          required: ['error', 'request_id'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', description: `One of ${Object.keys(ERROR_STATUS).join(', ')}` },
                message: { type: 'string' },
                details: { type: 'object' },
              },
              additionalProperties: false,
            },
            request_id: { type: 'string', format: 'uuid' },
          },
          additionalProperties: false,
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { SIGNATURE_HEADER, STANDARD_WEBHOOKS_HEADERS, WEBHOOK_RETRY_DELAYS_MS } from '@cowrie/webhooks';
import { sessionRoleOf, type RegisteredRoute, type SessionRole, type StepUpRule } from '../http/route-registry';
import { EXAMPLE_DELIVERY, EXAMPLE_NEXT_CURSOR, EXAMPLE_REQUEST_ID, ERROR_EXAMPLES, OPERATION_EXAMPLES, WEBHOOK_EXAMPLES } from './examples';
import { SCHEMA_NAMES, ZErrorResponse, ZPageMeta, ZResponseMeta } from './schemas';
import { WEBHOOK_EVENTS, type WebhookEventSpec } from './webhooks';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

const SCHEMA_REF = '#/components/schemas/';
// The id a schema without a name gets while it is converted; never written to the document.
const UNNAMED = '~unnamed-';

/**
 * The zod schemas of the document as JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect): as a request reads them (io: input) or a response writes them
 * (io: output). A named schema (SCHEMA_NAMES) is a `$ref` to its entry in
 * components.schemas; any other is written inline.
 */
class DocumentSchemas {
  private readonly converted: Record<Io, { roots: Map<z.ZodType, JsonSchema>; named: Map<string, JsonSchema> }>;
  private readonly used: Record<Io, Set<string>> = { input: new Set(), output: new Set() };

  /** Every schema `of` will be asked for, by io: zod converts them together, so they can refer to the named ones. */
  constructor(roots: Record<Io, readonly z.ZodType[]>) {
    this.converted = { input: convert('input', roots.input), output: convert('output', roots.output) };
  }

  /** The JSON Schema of `schema` as it is read (input) or written (output). */
  of(schema: z.ZodType, io: Io): JsonSchema {
    const json = this.converted[io].roots.get(schema);
    if (!json) throw new Error(`a schema of the document was not among the ${io} schemas converted`);
    this.collectRefs(json, io);
    return json;
  }

  /**
   * components.schemas: the named schemas the document refers to, by name. A
   * schema used in requests and in responses must read the same both ways:
   * one with a default, a coercion or a transform does not, nor does an
   * object (a request may carry fields it ignores, a response has no others),
   * so each side needs a name of its own.
   */
  components(): Record<string, JsonSchema> {
    const names = [...new Set([...this.used.input, ...this.used.output])].sort();
    return Object.fromEntries(
      names.map((name) => {
        const input = this.used.input.has(name) ? this.converted.input.named.get(name) : undefined;
        const output = this.used.output.has(name) ? this.converted.output.named.get(name) : undefined;
        if (input && output && !isDeepStrictEqual(input, output)) {
          throw new Error(`schema ${name} reads differently in requests than in responses: give the request's and the response's schema a name each`);
        }
        return [name, (output ?? input)!];
      }),
    );
  }

  private collectRefs(node: unknown, io: Io): void {
    if (Array.isArray(node)) {
      for (const item of node) this.collectRefs(item, io);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const ref = (node as JsonSchema).$ref;
    if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF)) {
      const name = ref.slice(SCHEMA_REF.length);
      if (!this.used[io].has(name)) {
        this.used[io].add(name);
        this.collectRefs(this.converted[io].named.get(name), io);
      }
    }
    for (const value of Object.values(node)) this.collectRefs(value, io);
  }
}

/** Converts every named schema and `roots` in one pass of zod's registry conversion, whose references between registered schemas are `$ref`s. */
function convert(io: Io, roots: readonly z.ZodType[]) {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of SCHEMA_NAMES) registry.add(schema, { id: name });
  let unnamed = 0;
  for (const root of roots) if (!registry.has(root)) registry.add(root, { id: `${UNNAMED}${unnamed++}` });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: (id) => `${SCHEMA_REF}${id}` });
  // Shared definitions appear only for recursive schemas, which the API has none of.
  if ('__shared' in schemas) throw new Error('a schema of the document is recursive; name it (SCHEMA_NAMES) so it can refer to itself');
  const emitted = (id: string): JsonSchema => {
    const { $schema: _schema, $id: _id, ...json } = schemas[id] as JsonSchema;
    return inlineUnnamed(json) as JsonSchema;
  };
  // A schema without a name that appears inside another is written out in place.
  const inlineUnnamed = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inlineUnnamed);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as JsonSchema).$ref;
    if (typeof ref === 'string' && ref.startsWith(`${SCHEMA_REF}${UNNAMED}`)) {
      const { $ref: _ref, ...siblings } = node as JsonSchema;
      return { ...emitted(ref.slice(SCHEMA_REF.length)), ...siblings };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlineUnnamed(value)]));
  };
  const named = new Map([...SCHEMA_NAMES.keys()].map((name) => [name, emitted(name)] as const));
  const rootJson = new Map(
    roots.map((root) => {
      const id = registry.get(root)!.id;
      return [root, id.startsWith(UNNAMED) ? emitted(id) : { $ref: `${SCHEMA_REF}${id}` }] as const;
    }),
  );
  return { roots: rootJson, named };
}

/** The schemas a route's requests are read with and its responses written with. */
function routeSchemas(route: RegisteredRoute): Record<Io, z.ZodType[]> {
  const { body, query, params } = route.request ?? {};
  const input = [body, query, params].filter((s): s is z.ZodType => s !== undefined);
  const output = Object.values(route.responses).flatMap((r) => [r.data, r.meta].filter((s): s is z.ZodType => s !== undefined));
  return { input, output };
}

const toOpenApiPath = (fullPath: string) => fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParamNames = (fullPath: string) => [...fullPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request: a field is missing or invalid (details.field names it)',
  401: 'unauthorized: missing, malformed, unknown or revoked credential',
  403: 'insufficient_scope: the API key lacks the required scope; on a dashboard route, the user must first change their one-time password (details.reason password_change_required) or, as an owner or admin under REQUIRE_MFA_FOR_ADMINS, turn on a second factor (details.reason mfa_enrolment_required), or lacks the role',
  404: 'not_found',
  409: 'idempotency_conflict: the Idempotency-Key was reused with a different request, or is still in progress',
  413: 'invalid_request: the request body is larger than the limit (BODY_LIMIT, 100 KB by default); details.limit_bytes says how many bytes',
  415: 'invalid_request: the request body is not UTF-8 JSON (a charset other than UTF-8, or a Content-Encoding the API does not read)',
  429: 'rate_limited: request budget (per API key on /v1, per session on dashboard routes) or another limit exceeded (details.retry_after_seconds)',
  501: 'coming_soon',
  502: 'provider_error: rail failure',
  503: 'provider_error: rail not configured or unavailable',
  504: 'provider_error: rail timeout',
};

/** The methods whose requests carry a body, which the gateway reads as JSON. */
const BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

/** What each section of the reference holds; every tag a route or event uses needs one. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Operations: 'Liveness, readiness and this document. No authentication.',
  Catalog: 'What this deployment offers: deposit channels, capabilities, and the routes that are not available yet.',
  Verification: 'One-time codes by SMS, voice or email, to prove a customer controls a phone number or an email address.',
  Deposits: "Accounts that collect money in: the business's own (POST /v1/deposits), one-off collections and reserved accounts for customers.",
  Payouts: 'Money out of a wallet to a bank account or a saved beneficiary.',
  'Bank lookup': 'The banks a payout can reach, and the name of an account number.',
  'Balances and ledger': 'Wallet balances, ledger transactions and the accounts paid.',
  'Test helpers':
    "What a test key (`ck_test_`) can make happen on the test side's sandbox rails: a payer's transfer, the code a phone would get, the bank returning a payout, an event. Each goes through the path the real thing takes, so its credits, events and webhooks are the real ones. To a live key these routes do not exist (404 not_found).",
  Dashboard:
    'Dashboard users sign in for a session token (with a second factor on, in two steps: the password, then a code); the dashboard routes take it. ' +
    'Guarded changes (payouts, API keys, invitations, new webhook endpoints, webhook URLs and secrets) also need a sign-in or a step-up within STEP_UP_SECONDS.',
  'Webhooks (dashboard)': 'Webhook endpoints and the delivery log, with a dashboard session.',
  'Balances and ledger (dashboard)': "The signed-in workspace's balances and ledger, with a dashboard session: the reads of /v1/balances and /v1/transactions.",
  'Payouts (dashboard)':
    "Transfers, withdrawals, bank lookup and beneficiaries with a dashboard session: the handlers of /v1's payout routes, acting for the signed-in workspace; a payout must carry an Idempotency-Key.",
  'Payout approvals (dashboard)':
    "Maker-checker for the dashboard's payouts, with a dashboard session: an owner sets, per side and currency, the amount above which a transfer or withdrawal from the dashboard becomes a payout request (202) instead of being sent; another owner or admin approves it (with a step-up; the payout is then sent once, under the requester's Idempotency-Key) or rejects it within 24 hours. /v1 payouts never wait for one.",
  'Team (dashboard)':
    "The workspace's dashboard users, with a dashboard session: everyone lists them, owners and admins invite (a one-time password) and remove.",
  'Deposits (dashboard)': "The signed-in workspace's collections, reserved accounts and the transfers into them, with a dashboard session.",
  'Verification (dashboard)': "The signed-in workspace's verifications, with a dashboard session: destinations masked, never a code.",
  'API keys (dashboard)': "The workspace's own API keys, with a dashboard session: create (shown once), list, revoke, roll with a grace period.",
  'Audit trail (dashboard)':
    'Who did what in the workspace (sign-ins, keys, the team, payouts sent from the dashboard, webhook endpoints, the operator CLI), with a dashboard session of an owner or an admin: filtered, paged, and as CSV. Rows are append-only and kept for as long as the database is.',
  'Webhook events': `What Cowrie posts to a subscribed endpoint: a JSON body signed with the endpoint secret twice, in ${SIGNATURE_HEADER} (verify it with @cowrie/sdk's verifyWebhookSignature and the 64-hex \`secret\`) and in the Standard Webhooks headers ${Object.values(STANDARD_WEBHOOKS_HEADERS).join(', ')} (verify them with a Standard Webhooks library, such as the standardwebhooks npm package, and \`standard_webhooks_secret\`, the same key as \`whsec_…\`). Any 2xx answer acknowledges it; anything else, or no answer within WEBHOOK_TIMEOUT_MS, fails the attempt. A delivery is attempted ${WEBHOOK_RETRY_DELAYS_MS.length} times at most, waiting ${WEBHOOK_RETRY_DELAYS_MS.join(', ')} ms before each.`,
};
const WEBHOOK_TAG = 'Webhook events';

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** `{example}` when `value` is one, else nothing. */
const exampleOf = (value: unknown): { example?: unknown } => (value === undefined ? {} : { example: value });

function parametersOf(route: RegisteredRoute, schemas: DocumentSchemas): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const examples = OPERATION_EXAMPLES[route.operationId]?.request;
  const names = pathParamNames(route.fullPath);
  const params = route.request?.params ? schemas.of(route.request.params, 'input') : undefined;
  const paramProps = (params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of names) {
    if (!paramProps[name]) throw new Error(`${route.method.toUpperCase()} ${route.fullPath}: path parameter ${name} has no schema in request.params`);
    const { description, ...schema } = paramProps[name];
    parameters.push({ name, in: 'path', required: true, schema, ...(description ? { description } : {}), ...exampleOf(examples?.params?.[name]) });
  }
  if (route.request?.query) {
    const query = schemas.of(route.request.query, 'input');
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        schema: rest,
        ...(description ? { description } : {}),
        ...exampleOf(examples?.query?.[name]),
      });
    }
  }
  if ((route.auth.kind === 'api_key' && route.method === 'post') || route.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (route.auth.kind === 'session') parameters.push({ $ref: '#/components/parameters/CowrieMode' });
  return parameters;
}

function responsesOf(route: RegisteredRoute, schemas: DocumentSchemas): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  const v1 = route.auth.kind === 'api_key';
  // API keys and dashboard sessions both have a request budget, and its headers.
  const budgeted = route.auth.kind !== 'none';
  // A POST that takes an Idempotency-Key may be answered by a replay of its first success.
  const replayable = (v1 && route.method === 'post') || route.idempotent === true;
  const headers = {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    ...(budgeted ? RATE_LIMIT_HEADERS : {}),
    ...(route.responseHoldsSecret ? { 'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Store' } } : {}),
    ...(replayable ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
  };
  const examples = OPERATION_EXAMPLES[route.operationId];
  const errors = new Set<number>();
  for (const [status, response] of Object.entries(route.responses)) {
    const code = Number(status);
    if (code >= 400) {
      errors.add(code);
      continue;
    }
    if (response.csv) {
      responses[status] = {
        description: response.description,
        headers: {
          ...headers,
          'Cache-Control-No-Cache': {
            description: '`no-cache`: a cache may keep it but must ask again before using it',
            schema: { type: 'string', const: 'no-cache' },
          },
          'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' },
          'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Store' },
        },
        content: { 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV, a header line first' } } },
      };
      continue;
    }
    if (response.raw) {
      responses[status] = {
        description: response.description,
        // The one raw answer is this document, which clients revalidate rather than keep.
        headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, 'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Cache' } },
        content: { 'application/json': { schema: response.data ? schemas.of(response.data, 'output') : { type: 'object' } } },
      };
      continue;
    }
    const data = examples?.responses[code];
    const meta = {
      ...(response.meta === ZPageMeta ? { request_id: EXAMPLE_REQUEST_ID, next_cursor: EXAMPLE_NEXT_CURSOR } : { request_id: EXAMPLE_REQUEST_ID }),
      ...examples?.meta,
    };
    responses[status] = {
      description: response.description,
      headers,
      content: response.data
        ? {
            'application/json': {
              ...(data === undefined ? {} : { example: { data, meta } }),
              schema: {
                type: 'object',
                required: ['data', 'meta'],
                properties: {
                  data: schemas.of(response.data, 'output'),
                  meta: schemas.of(response.meta ?? ZResponseMeta, 'output'),
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
  if (route.auth.kind === 'api_key' && (route.auth.scope || route.auth.scopeByInput)) errors.add(403);
  // A test helper does not exist for a live key.
  if (route.auth.kind === 'api_key' && route.auth.testModeOnly) errors.add(404);
  // Any session route refuses a user who must first change a one-time password, or turn on a second factor, unless it answers them.
  if (route.auth.kind === 'session' && (!route.auth.beforePasswordChange || !route.auth.beforeMfaEnrolment || route.auth.stepUp)) errors.add(403);
  if (route.request?.body || route.request?.query || route.request?.params) errors.add(400);
  // Every route that takes a body reads it as JSON before its handler, whatever its schema: a broken body is
  // 400, one past BODY_LIMIT 413, one in another charset or encoding 415.
  const readsBody = BODY_METHODS.has(route.method);
  if (readsBody) for (const code of [400, 413, 415]) errors.add(code);
  if (v1 && route.method === 'post') errors.add(409);
  for (const code of [...errors].sort()) {
    const own = route.responses[code]?.description;
    const error = v1 ? ERROR_EXAMPLES[code] : undefined;
    // A body the gateway cannot read is answered before the route's own layers (so without their Cache-Control)
    // and, except on /v1 (which checks the key and its budget first), before the budget too.
    const bodyUnread = code === 413 || code === 415;
    // A /v1 401 carries its client address's budget of refused requests (PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT).
    const beforeBudget = !v1 && (code === 401 || bodyUnread);
    responses[String(code)] = {
      description: own ?? ERROR_DESCRIPTIONS[code] ?? 'Error',
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        // The budget is counted once the credential is known: every answer after that carries it.
        ...(budgeted && !beforeBudget ? RATE_LIMIT_HEADERS : {}),
        ...(code === 429 || code === 503 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
        // A route whose answer holds a secret says no-store on every answer, before it knows which it gives.
        ...(route.responseHoldsSecret && !bodyUnread ? { 'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Store' } } : {}),
      },
      content: {
        'application/json': { ...(error ? { example: { error, request_id: EXAMPLE_REQUEST_ID } } : {}), schema: schemas.of(ZErrorResponse, 'output') },
      },
    };
  }
  return responses;
}

const SESSION_ROLE_LINES: Record<SessionRole, string> = {
  owner: 'Dashboard session (POST /auth/login) of an owner; an admin or a member gets 403.',
  team_admin: 'Dashboard session (POST /auth/login) of an owner or an admin; a member gets 403.',
  any_user: 'Dashboard session (POST /auth/login) of any user of the workspace.',
};

function stepUpLineOf(rule: StepUpRule): string {
  const when = rule === true ? '' : ` (${rule.description})`;
  return (
    `**Step-up${when}:** the session must have signed in or stepped up (POST /auth/step-up) within the last STEP_UP_SECONDS (default 300); ` +
    'otherwise 403 insufficient_scope with details.reason step_up_required (and details.step_up_with: code or password). ' +
    'Step up, then send the same request again (with the same Idempotency-Key).'
  );
}

function operationOf(route: RegisteredRoute, schemas: DocumentSchemas): JsonSchema {
  const auth = route.auth;
  const security = auth.kind === 'api_key' ? [{ apiKey: [] }] : auth.kind === 'session' ? [{ session: [] }] : [];
  const keyLine = auth.kind === 'api_key' && auth.testModeOnly ? ' Test keys (`ck_test_`) only: a live key gets 404 not_found.' : '';
  const scopeLine =
    auth.kind === 'api_key'
      ? (auth.scope ? `Scope: \`${auth.scope}\`.` : auth.scopeByInput ? `Scope: ${auth.scopeByInput.description}.` : 'Any valid API key.') + keyLine
      : auth.kind === 'session'
        ? SESSION_ROLE_LINES[sessionRoleOf({ method: route.method, auth })]
        : 'No authentication.';
  const stepUpLine = auth.kind === 'session' && auth.stepUp ? stepUpLineOf(auth.stepUp) : undefined;
  const operation: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, scopeLine, stepUpLine].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    security,
    parameters: parametersOf(route, schemas),
    responses: responsesOf(route, schemas),
  };
  if (auth.kind === 'api_key') operation['x-cowrie-scope'] = auth.scope;
  if (auth.kind === 'api_key' && auth.testModeOnly) operation['x-cowrie-test-mode-only'] = true;
  // Machine-readable: true, or the condition under which this route needs a step-up.
  if (auth.kind === 'session' && auth.stepUp) operation['x-cowrie-step-up'] = auth.stepUp === true ? true : auth.stepUp.description;
  if (route.request?.body) {
    const example = OPERATION_EXAMPLES[route.operationId]?.request?.body;
    operation.requestBody = { required: true, content: { 'application/json': { ...exampleOf(example), schema: schemas.of(route.request.body, 'input') } } };
  }
  return operation;
}

/** `transfer.completed` → `transferCompletedWebhook`. */
const webhookOperationId = (event: string) =>
  `${event
    .split(/[._]/)
    .map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('')}Webhook`;

/** An example body of one event's delivery, when WEBHOOK_EXAMPLES has its `data`. */
function webhookExampleOf(event: string): { example?: unknown } {
  const data = WEBHOOK_EXAMPLES[event];
  return data === undefined ? {} : { example: { id: EXAMPLE_DELIVERY.id, event, created_at: EXAMPLE_DELIVERY.created_at, data, livemode: true } };
}

/** The request Cowrie makes to a subscribed endpoint for one event. */
function webhookOf(event: WebhookEventSpec, schemas: DocumentSchemas): JsonSchema {
  const failed = `The attempt failed; a delivery gets ${WEBHOOK_RETRY_DELAYS_MS.length} attempts in all.`;
  return {
    post: {
      operationId: webhookOperationId(event.name),
      summary: event.summary,
      description: event.description,
      tags: [WEBHOOK_TAG],
      // Authenticated by its signature (the X-Cowrie-Signature parameter), not by a credential of the receiver's.
      security: [],
      parameters: [
        { $ref: '#/components/parameters/CowrieSignature' },
        { $ref: '#/components/parameters/CowrieEvent' },
        { $ref: '#/components/parameters/CowrieDelivery' },
        { $ref: '#/components/parameters/StandardWebhookId' },
        { $ref: '#/components/parameters/StandardWebhookTimestamp' },
        { $ref: '#/components/parameters/StandardWebhookSignature' },
      ],
      requestBody: { required: true, content: { 'application/json': { ...webhookExampleOf(event.name), schema: schemas.of(event.body, 'output') } } },
      responses: {
        '2XX': { description: 'Received: any 2xx status acknowledges the delivery.' },
        '4XX': { description: `The receiver refused it. ${failed}` },
        default: { description: `Any other status (redirects are not followed), or no answer within WEBHOOK_TIMEOUT_MS. ${failed}` },
      },
    },
  };
}

export interface OpenApiOptions {
  version?: string;
}

/**
 * The OpenAPI 3.1 document of `routes` (their specs at their full paths, in
 * the order they are served), built from the same zod schemas that validate
 * the requests (io: input) and describe the responses (io: output), with the
 * webhook events Cowrie sends. Nothing of a running gateway is needed.
 */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[], options: OpenApiOptions = {}) {
  const roots: Record<Io, z.ZodType[]> = { input: [], output: [ZResponseMeta, ZErrorResponse, ...WEBHOOK_EVENTS.map((e) => e.body)] };
  for (const route of routes) {
    const { input, output } = routeSchemas(route);
    roots.input.push(...input);
    roots.output.push(...output);
  }
  const schemas = new DocumentSchemas(roots);

  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const key = toOpenApiPath(route.fullPath);
    (paths[key] ??= {})[route.method] = operationOf(route, schemas);
  }
  const webhooks = Object.fromEntries(WEBHOOK_EVENTS.map((event) => [event.name, webhookOf(event, schemas)]));
  const tags = [...new Set([...routes.map((r) => r.tag), WEBHOOK_TAG])].map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    if (!description) throw new Error(`tag ${name} has no description in TAG_DESCRIPTIONS`);
    return { name, description };
  });
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Cowrie API',
      version: options.version ?? '1.0.0',
      description: [
        'Payouts, deposits, contact verification and outbound webhooks.',
        'Success bodies are `{data, meta: {request_id}}`; errors are `{error: {code, message, details?}, request_id}` (ErrorResponse).',
        'Send `Idempotency-Key` on POST requests to retry them safely; clients must ignore unknown response fields and event names.',
        `The events Cowrie posts to webhook endpoints are under \`webhooks\`, each signed in ${SIGNATURE_HEADER} and in the Standard Webhooks headers (${Object.values(STANDARD_WEBHOOKS_HEADERS).join(', ')}).`,
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{scheme}://{host}',
        description: 'A Cowrie deployment: its address, without /v1 (the paths carry it)',
        variables: {
          scheme: { default: 'http', enum: ['http', 'https'], description: 'https behind a TLS-terminating proxy' },
          host: { default: '127.0.0.1:3000', description: 'Host and port of the gateway (HOST and PORT; 127.0.0.1:3000 by default)' },
        },
      },
      { url: '/', description: 'The deployment that served this document' },
    ],
    tags,
    paths,
    webhooks,
    components: {
      schemas: schemas.components(),
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
            'Replays the stored response of the first successful request with this key (24 hours, per workspace); a different request with the same key, or the same request from another user of the workspace with a dashboard session, is 409.',
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
        CowrieSignature: {
          name: SIGNATURE_HEADER,
          in: 'header',
          required: true,
          description:
            "`t=<unix seconds>,v1=<hex HMAC-SHA256>`: the HMAC-SHA256 of `<t>.` followed by the raw body bytes, keyed with the endpoint secret (the 64-hex string itself, as UTF-8). Verify it over the body exactly as received, compare in constant time, and refuse a `t` more than 5 minutes from now (the suggested window). During a secret roll's grace period the header carries one `v1` per secret, the new one first (`t=<ts>,v1=<new>,v1=<old>`): accept the delivery when any `v1` matches the secret you hold.",
          schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
        },
        CowrieEvent: {
          name: 'X-Cowrie-Event',
          in: 'header',
          required: true,
          description: 'The event name, as the body `event`.',
          schema: { type: 'string' },
        },
        CowrieDelivery: {
          name: 'X-Cowrie-Delivery',
          in: 'header',
          required: true,
          description: 'The delivery id, as the body `id`: the same on every retry of this delivery, so de-duplicate on it.',
          schema: { type: 'string', format: 'uuid' },
        },
        StandardWebhookId: {
          name: STANDARD_WEBHOOKS_HEADERS.id,
          in: 'header',
          required: true,
          description: 'Standard Webhooks: the delivery id, the same as X-Cowrie-Delivery and the body `id`, kept across retries, resends and recovers.',
          schema: { type: 'string', format: 'uuid' },
        },
        StandardWebhookTimestamp: {
          name: STANDARD_WEBHOOKS_HEADERS.timestamp,
          in: 'header',
          required: true,
          description: 'Standard Webhooks: when this attempt was signed, in Unix seconds (the `t` of X-Cowrie-Signature).',
          schema: { type: 'string', pattern: '^\\d+$' },
        },
        StandardWebhookSignature: {
          name: STANDARD_WEBHOOKS_HEADERS.signature,
          in: 'header',
          required: true,
          description:
            "Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.` followed by the raw body bytes, keyed with the endpoint secret (the same key bytes as X-Cowrie-Signature's; `standard_webhooks_secret` is that key as `whsec_<base64>`). A Standard Webhooks library verifies it: `new Webhook(standard_webhooks_secret).verify(rawBody, headers)` of the standardwebhooks npm package, which also refuses a timestamp more than 5 minutes from now. During a secret roll's grace period one signature per secret, space-separated, the new one first (`v1,<new> v1,<old>`): any one that matches verifies.",
          schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$' },
        },
      },
      headers: {
        'X-Request-Id': { description: 'UUID of this request, also in the body', schema: { type: 'string', format: 'uuid' } },
        'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left after this one, never below 0', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Window end as a Unix timestamp in seconds', schema: { type: 'integer' } },
        'Retry-After': {
          description:
            'Seconds to wait before trying again: on a 429, as `error.details.retry_after_seconds`; on a 503, 1 when a dependency was lost for a moment (retry a write with the same Idempotency-Key)',
          schema: { type: 'integer', minimum: 1 },
        },
        'Idempotent-Replayed': {
          description:
            '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key (nothing ran again); absent on the first answer',
          schema: { type: 'string', const: 'true' },
        },
        'Cache-Control-No-Cache': {
          description: '`no-cache`: a cache may keep it but must ask again before using it',
          schema: { type: 'string', const: 'no-cache' },
        },
        'Content-Disposition': { description: '`attachment; filename="<name>-<date>.csv"`', schema: { type: 'string' } },
        'Cache-Control-No-Store': {
          description:
            '`no-store`: the answer carries a secret (a key, a signing secret, a password, a session token) that no cache may keep; replays say so too',
          schema: { type: 'string', const: 'no-store' },
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

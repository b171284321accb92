import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from '@cowrie/core';
import { ZAmount, ZTimestamp } from '@cowrie/events';

type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
/** S promises no more than T holds (it may narrow a string to an enum) and names the same fields. */
type Describes<S, T> = [S] extends [T] ? SameKeys<S, T> : false;

/**
 * A response schema checked at compile time against the type the code
 * renders, so the document cannot drift from the renderer:
 * `responseOf<VerificationRecord>()(ZVerificationRecord)`.
 */
export const responseOf =
  <T>() =>
  <S extends z.ZodType>(schema: S, ..._check: Describes<z.output<S>, T> extends true ? [] : ['this schema does not describe the rendered type']) =>
    schema;

const namedSchemas = new Map<string, z.ZodType>();

/**
 * The API document's named schemas, by name: each is written once under
 * `components.schemas` and referenced with `$ref` wherever a request, a
 * response or a webhook uses it. A schema without a name is written inline.
 */
export const SCHEMA_NAMES: ReadonlyMap<string, z.ZodType> = namedSchemas;

/**
 * Gives `schema` its name in the API document (see SCHEMA_NAMES) and returns
 * it unchanged. A name is given once, to one schema; name the schema itself,
 * not a copy made by `.meta()` or `.optional()`, which refers to it.
 */
export function named<S extends z.ZodType>(name: string, schema: S): S {
  const taken = namedSchemas.get(name);
  if (taken === schema) return schema;
  if (taken) throw new Error(`two schemas are named ${name}`);
  for (const [other, s] of namedSchemas) if (s === schema) throw new Error(`schema ${other} cannot also be named ${name}`);
  namedSchemas.set(name, schema);
  return schema;
}

/** An ISO 8601 UTC timestamp, and an amount (a decimal string with 6 fractional digits), as the API renders them (declared with the webhook events' data). */
export { ZAmount, ZTimestamp };
/** A database id in a path (`/collections/:id`). */
export const ZIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647).meta({ description: 'The id the API gave it' }) });

export const ZRequestId = z.string().meta({ format: 'uuid', description: 'UUID of the request, also sent as X-Request-Id' });

/** `meta` of every success body. */
export const ZResponseMeta = named('ResponseMeta', z.object({ request_id: ZRequestId }).meta({ description: '`meta` of a success body' }));

const ZPageCursor = z.string().max(200).optional().meta({ description: '`meta.next_cursor` of the previous page' });

/** The query fields of a cursor-paginated list (pageLimit and decodePageCursor read them). */
export const pageQueryFields = {
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: 'Rows per page, default 20' }),
  cursor: ZPageCursor,
};

/**
 * The query fields of a list that answered a fixed number of rows before it
 * paged: its old number is the default page (so a client that sends neither
 * field gets what it got), and a larger `limit` is refused (`max`) or clamped
 * (`clamped`: the list clamped it before).
 */
export function pageQueryFieldsOf(sizes: { default: number; max: number }, larger: 'refused' | 'clamped' = 'refused') {
  const limit = z.coerce.number().int().min(1);
  return {
    limit: (larger === 'refused' ? limit.max(sizes.max) : limit)
      .optional()
      .meta({ description: `Rows per page, default ${sizes.default}${larger === 'clamped' ? `, clamped to ${sizes.max}` : ''}` }),
    cursor: ZPageCursor,
  };
}

/** What the description of a cursor-paginated list says. */
export const PAGED_LIST = 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).';

/** `meta` of a page of a cursor-paginated list. */
export const ZPageMeta = named(
  'PageMeta',
  z
    .object({
      request_id: ZRequestId,
      next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
    })
    .meta({ description: '`meta` of a page of a cursor-paginated list' }),
);

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** `error.code`: the closed set of codes of @cowrie/core's ERROR_STATUS. */
const ZErrorCode = named(
  'ErrorCode',
  z.enum(ERROR_CODES).meta({
    description: `What went wrong. Each code has its usual HTTP status (${Object.entries(ERROR_STATUS)
      .map(([code, status]) => `${code} ${status}`)
      .join(', ')}); an operation's responses say where it answers one with another status (provider_error 503 or 504, say).`,
  }),
);

/** `error.details` of the codes the document describes fields for: each field optional, others allowed. */
const details = (name: string, description: string, shape: z.ZodRawShape) => named(name, z.looseObject(shape).meta({ description }));

/** What `error.details` holds, by code, where the API says. */
const ERROR_DETAILS = {
  invalid_request: details('InvalidRequestDetails', '`details` of invalid_request', {
    field: z.string().optional().meta({ description: 'The request field at fault' }),
    reference: z.string().optional().meta({ description: 'A verification whose code could not be delivered: its reference, to read the failed row' }),
    limit_bytes: z.number().int().optional().meta({ description: 'A body over the limit (413): the largest body the API reads, in bytes' }),
  }),
  insufficient_scope: details('InsufficientScopeDetails', '`details` of insufficient_scope', {
    required_scope: z.string().optional().meta({ description: 'The scope the API key lacks' }),
    required_role: z.string().optional().meta({ description: 'Dashboard routes: the role the user lacks' }),
    reason: z.string().optional().meta({ description: 'Dashboard routes: password_change_required, mfa_enrolment_required or step_up_required' }),
    step_up_with: z.enum(['code', 'password']).optional().meta({ description: 'step_up_required: what POST /auth/step-up takes from this user' }),
  }),
  idempotency_conflict: details('IdempotencyConflictDetails', '`details` of idempotency_conflict', {
    reason: z.string().optional().meta({ description: 'concurrent_roll: other secret rolls kept landing first' }),
  }),
  rate_limited: details('RateLimitedDetails', '`details` of rate_limited', {
    retry_after_seconds: z.number().int().optional().meta({ description: 'Seconds until a retry may pass (also the Retry-After header)' }),
    limit: z.number().int().optional().meta({ description: 'The request budget, or the limit that was reached' }),
    reason: z
      .string()
      .optional()
      .meta({ description: 'Which limit, where it is not the request budget: destination or business (verifications), webhook_endpoints, …' }),
  }),
  provider_error: details('ProviderErrorDetails', '`details` of provider_error', {
    transaction: z.record(z.string(), z.unknown()).optional().meta({ description: 'A payout: the ledger transaction (Transaction) as the rail left it' }),
    outcome: z.literal('unknown').optional().meta({ description: 'The rail may have the money: the row stays processing and a transfer.* event follows' }),
    reference: z.string().optional().meta({ description: "With outcome unknown: the payout's reference" }),
    message: z.string().optional().meta({ description: "The rail's own words" }),
  }),
} as const satisfies Partial<Record<ErrorCode, z.ZodType>>;

const ZOtherDetails = z.record(z.string(), z.unknown()).meta({ description: 'Facts about the error' });
const OTHER_CODES = ERROR_CODES.filter((code) => !(code in ERROR_DETAILS)) as [ErrorCode, ...ErrorCode[]];

/**
 * `error` of an error answer: its code (ErrorCode), message and details, and
 * one branch per code whose `details` the API describes (the rest any object).
 */
const ZError = z.intersection(
  z.object({ code: ZErrorCode, message: z.string(), details: ZOtherDetails.optional() }),
  z.union([
    ...Object.entries(ERROR_DETAILS).map(([code, schema]) =>
      z.object({ code: z.literal(code as ErrorCode), details: (schema as z.ZodType<Record<string, unknown>>).optional() }),
    ),
    z.object({ code: z.enum(OTHER_CODES) }),
  ] as unknown as [z.ZodObject<{ code: z.ZodEnum<Record<ErrorCode, ErrorCode>> }>]),
);

/** The body of every error answer. */
export const ZErrorResponse = named(
  'ErrorResponse',
  responseOf<ErrorEnvelope>()(
    z
      .object({
        error: ZError.meta({ description: '`code` says what went wrong; `details`, where there are any, what the code documents' }),
        request_id: ZRequestId,
      })
      .meta({ description: 'The body of every error answer' }),
  ),
);

/**
 * The closed set of error codes, each with its usual HTTP status (a few codes
 * may also be sent with another), when it is sent and what the client should
 * do (`clientAction`). Clients branch on the code, never on the message. docs/reference/errors.md is made from this
 * catalog by `npm run docs:generate`, and a test fails when the two differ.
 */
export const ERROR_CATALOG = {
  invalid_request: {
    status: 400,
    when: 'The request cannot be done as asked: a field missing or invalid (`details.field` names it), an amount beyond the available balance (`Exceeds balance: <available> <currency>`), an unsupported currency or channel, a code that could not be delivered, a deposit channel that is not live. Nothing was changed.',
    clientAction:
      'Fix the request (the field `details.field` names, or what the message says) before sending it again: sent unchanged, it is refused the same way.',
  },
  unauthorized: {
    status: 401,
    when: 'The credential is missing, malformed, unknown, expired or revoked: an API key on `/v1`, a session token on the dashboard routes, or a sign-in that failed.',
    clientAction: 'Do not retry as is: check the API key (a revoked or expired one needs a new one), or sign in again for a dashboard session.',
  },
  insufficient_scope: {
    status: 403,
    when: "The credential is valid but may not do this: the API key lacks the route's scope, the user's role is not enough, or the session must first change its one-time password, enrol a second factor or step up (`details.reason` says which).",
    clientAction:
      "Do not retry as is: use a key with the route's scope, or a user whose role allows it; with `details.reason`, do what it names first (change the one-time password, enrol a second factor, step up), then send again.",
  },
  not_found: {
    status: 404,
    when: "Nothing with that id or reference in this workspace (another workspace's records are never found), no wallet for the currency, an unknown or inactive beneficiary, or a test helper called with a live key.",
    clientAction:
      'Check the id or reference, and that the key belongs to the workspace and mode (live or test) that made it; sending the same request again finds nothing more.',
  },
  idempotency_conflict: {
    status: 409,
    when: "The Idempotency-Key was used before with a different method, path or body (or that first request is still running); or a payout request's body `idempotency_key` already names another payout when it is approved (`details.reason` `idempotency_key_used`).",
    clientAction:
      'For a different request, use a new Idempotency-Key; while the first request is still running, wait and send the same request with the same key to get its answer. A payout request whose `idempotency_key` is used: reject it and ask again with another.',
  },
  rate_limited: {
    status: 429,
    when: 'A limit was reached: the request budget of the API key or the session (`details.limit`, `X-RateLimit-*` headers), a verification limit per destination or per workspace (`details.reason`), failed sign-ins, or another per-action limit. `details.retry_after_seconds` and the `Retry-After` header say when to try again.',
    clientAction:
      'Wait `details.retry_after_seconds` (the `Retry-After` header) before sending again; do not start more verifications to that destination or workspace meanwhile.',
  },
  internal_error: {
    status: 500,
    when: 'A bug: the message carries the request id to quote. Never sent for bad input.',
    clientAction:
      'Report the request id from the message; a write may be sent again with the same Idempotency-Key, which finds what committed, if anything did.',
  },
  coming_soon: {
    status: 501,
    when: 'The feature is announced but not available on this deployment: a payout in a currency the catalog lists as `coming_soon`, `POST /v1/cards`.',
    clientAction: 'Do not retry: offer another currency or channel (`GET /v1/channels` says which are live) until the deployment makes this one available.',
  },
  provider_error: {
    status: 502,
    otherStatuses: [503, 504],
    when: "A rail or provider failed: 502 when it answered with a failure or an error, 503 when it is not configured, unavailable, or Cowrie's own Postgres or Redis is not answering (try again), 504 when it timed out. A payout whose outcome is unknown stays `processing` with its money held until the rail says; it is never sent twice.",
    clientAction:
      'Send it again later with the same Idempotency-Key (after `Retry-After` when the answer has one); a payout with `details.outcome: "unknown"` is not failed: wait for its `transfer.*` event or read it, never open it again under a new key.',
  },
  not_ready: {
    status: 503,
    when: '`GET /readyz` only: Postgres or Redis is not answering, or the gateway is stopping (`details.checks`).',
    clientAction: 'Only load balancers and orchestrators read `/readyz`: send this gateway no traffic until it answers 200.',
  },
} as const satisfies Record<string, { status: number; otherStatuses?: readonly number[]; when: string; clientAction: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Each code's usual HTTP status (ERROR_CATALOG). */
export const ERROR_STATUS = Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, entry]) => [code, entry.status])) as {
  [C in ErrorCode]: (typeof ERROR_CATALOG)[C]['status'];
};

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  /** Overrides the code's default status (provider_error is 502, 503 or 504). */
  status?: number;
  /** Response headers to send with the error. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type that becomes an API error response. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/**
 * A rail (payout or collection) refused the caller's input, e.g. an unknown
 * bank or an amount it cannot represent: the client's mistake, not an outage.
 */
export class RailInputError extends Error {
  override name = 'RailInputError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

// Postgres: admin shutdown or termination (57P01-57P03), and the connection classes (08xxx).
const LOST_SQLSTATE = /^(57P0[123]|08\d{3})$/;
// Prisma's codes for a database it cannot reach or whose connection closed, and
// P2028: an interactive transaction that could not start in time (every pooled
// connection busy) or ran out of time (rolled back): nothing was committed.
const LOST_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2028']);
// pg-pool's own wait for a connection ("timeout exceeded when trying to connect") is the same busy pool;
// pg's "Client has encountered a connection error and is not queryable" is a connection lost inside a transaction.
const LOST_MESSAGES =
  /timeout exceeded when trying to connect|is not queryable|Too many Cluster redirections|Connection terminated|connection is closed|Connection is closed|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|CLUSTERDOWN|TRYAGAIN|LOADING|All sentinels are unreachable|Failed to refresh slots cache|Reached the max retries per request limit/;

/**
 * The error came from losing Postgres or Redis for a moment (a failover, a
 * restart, a terminated connection, a pool with no connection free in time),
 * not from the request: the request may be retried (with its Idempotency-Key,
 * for a write) once the dependency is back.
 * Looks through causes and Prisma's driver-adapter error.
 */
export function isDependencyUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
  if (typeof e.code === 'string' && (LOST_SQLSTATE.test(e.code) || LOST_PRISMA_CODES.has(e.code))) return true;
  if (typeof e.message === 'string' && LOST_MESSAGES.test(e.message)) return true;
  return isDependencyUnavailable(e.meta?.driverAdapterError?.cause, depth + 1) || isDependencyUnavailable(e.cause, depth + 1);
}

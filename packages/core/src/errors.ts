/** The closed set of error codes of the interface, each with its one HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  idempotency_conflict: 409,
  rate_limited: 429,
  internal_error: 500,
  coming_soon: 501,
  provider_error: 502,
  /** GET /readyz only: a dependency is not answering, or the gateway is stopping. */
  not_ready: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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

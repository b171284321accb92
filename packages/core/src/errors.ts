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
} as const;

export type TErrorCode = keyof typeof ERROR_STATUS;

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
  readonly code: TErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: TErrorCode, message: string, options: AppErrorOptions = {}) {
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

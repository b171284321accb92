import type { components } from './generated/openapi';

/** The API's error codes (`error.code`), the closed set the API document lists. */
export type ApiErrorCode = components['schemas']['ErrorCode'];

/**
 * A `CowrieApiError`'s code: the API's, `network_error` when no answer came
 * (status 0), or `unknown` when the answer was not the API's error envelope
 * (a proxy's error page, say).
 */
export type CowrieErrorCode = ApiErrorCode | 'network_error' | 'unknown';

/** `error` of the API's error body: a union by code (components.schemas.ErrorResponse). */
type ErrorBody = components['schemas']['ErrorResponse']['error'];

/** The `details` the API document gives one code (InvalidRequestDetails, RateLimitedDetails, …; an open object for the rest). */
type DocumentedDetails<C extends ApiErrorCode> = ErrorBody extends infer B
  ? B extends { code: infer K }
    ? C extends K
      ? NonNullable<B extends { details?: infer D } ? D : never>
      : never
    : never
  : never;

/**
 * What `details` holds for each code, as the API document describes it
 * (`retry_after_seconds` of rate_limited, `field` of invalid_request,
 * `transaction` and `outcome` of provider_error, …). `network_error` (no
 * answer) has none; `unknown` (not the API's envelope) any.
 */
export type ErrorDetailsByCode = { [C in ApiErrorCode]: DocumentedDetails<C> } & { network_error: undefined; unknown: Record<string, unknown> };

/** An error of one code: `code` and `details` go together, so checking `code` types `details`. */
export interface CowrieApiErrorOf<C extends CowrieErrorCode> extends Error {
  readonly name: 'CowrieApiError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly code: C;
  readonly details: ErrorDetailsByCode[C] | undefined;
  /** The answer's `request_id`, to quote to support. */
  readonly requestId: string | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;
}

/**
 * An error answer of the API (`{error: {code, message, details}, request_id}`),
 * or a call that got none (status 0, code `network_error`). A union by code:
 * after `err instanceof CowrieApiError && err.code === 'rate_limited'`,
 * `err.details.retry_after_seconds` is a number.
 */
export type CowrieApiError = { [C in CowrieErrorCode]: CowrieApiErrorOf<C> }[CowrieErrorCode];

class ApiError extends Error {
  override readonly name = 'CowrieApiError';
  constructor(
    readonly status: number,
    readonly code: CowrieErrorCode,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string | undefined,
    readonly attempts: number,
  ) {
    super(message);
  }
}

export interface CowrieApiErrorConstructor {
  new (
    status: number,
    code: CowrieErrorCode,
    message: string,
    details: Record<string, unknown> | undefined,
    requestId: string | undefined,
    attempts: number,
  ): CowrieApiError;
  readonly prototype: CowrieApiError;
}

/** The class of every error a call throws (see the `CowrieApiError` type). */
export const CowrieApiError = ApiError as unknown as CowrieApiErrorConstructor;

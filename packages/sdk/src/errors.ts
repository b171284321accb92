import type { components } from './generated/openapi';

/** The API's error codes (`error.code`), the closed set the API document lists. */
export type ApiErrorCode = components['schemas']['ErrorCode'];

/**
 * A `CowrieApiError`'s code: the API's, `network_error` when no answer came
 * (status 0), or `unknown` when the answer was not the API's error envelope
 * (a proxy's error page, say).
 */
export type CowrieErrorCode = ApiErrorCode | 'network_error' | 'unknown';

type Open<T> = T & Record<string, unknown>;

/**
 * What `details` holds for each code, as the API document describes it. Only
 * the fields it names are typed (all optional unless every answer with that
 * code has them); a code it names none for is an open object.
 */
export interface ErrorDetailsByCode {
  /** `field` names the request field at fault; a failed code delivery names the verification's `reference`. */
  invalid_request: Open<{ field?: string; reference?: string }>;
  unauthorized: Open<object>;
  /**
   * The scope an API key lacks (`required_scope`); on dashboard routes the role
   * (`required_role`) or what the session must do first (`reason`).
   */
  insufficient_scope: Open<{
    required_scope?: string;
    required_role?: string;
    reason?: 'password_change_required' | 'mfa_enrolment_required' | 'step_up_required' | (string & {});
    step_up_with?: 'code' | 'password';
  }>;
  not_found: Open<object>;
  idempotency_conflict: Open<{ reason?: string }>;
  /**
   * Every 429 says when to come back (also the Retry-After header). The request
   * budget adds its `limit`; a verification limit its `reason` (`destination`,
   * `business`, …).
   */
  rate_limited: Open<{ retry_after_seconds: number; limit?: number; reason?: 'destination' | 'business' | (string & {}) }>;
  internal_error: Open<object>;
  coming_soon: Open<object>;
  /**
   * A payout's: `transaction` is the ledger row as the rail left it; an
   * `outcome` of `unknown` means the rail may have the money (the row stays
   * processing and a `transfer.*` webhook follows), with its `reference`.
   */
  provider_error: Open<{ transaction?: components['schemas']['Transaction']; outcome?: 'unknown'; reference?: string; message?: string }>;
  not_ready: Open<object>;
  network_error: undefined;
  unknown: Open<object>;
}

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

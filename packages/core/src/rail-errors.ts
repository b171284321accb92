import { AppError, RailInputError } from './errors';

export interface RailErrorOptions {
  /** The rail that failed (`paystack`, `sandbox`); deposits answer it as `details.provider`. */
  provider: string;
  /**
   * True when the request may have reached the rail (a timeout, a 5xx, a
   * dropped connection): the outcome must be asked for before anything is
   * sent again. False when the rail certainly did nothing (not configured,
   * refused before sending).
   */
  maybeSent: boolean;
  /** What the rail answered, kept with a failed payout as its `metadata.raw`. */
  raw?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * A rail (payout or collection) failed or could not be reached: 502
 * (failure), 503 (not configured or unavailable), 504 (timeout). Its message
 * never carries a secret.
 */
export class RailError extends Error {
  override name = 'RailError';
  readonly status: 502 | 503 | 504;
  readonly provider: string;
  readonly maybeSent: boolean;
  readonly raw?: Record<string, unknown>;

  constructor(status: 502 | 503 | 504, message: string, options: RailErrorOptions) {
    super(message, { cause: options.cause });
    this.status = status;
    this.provider = options.provider;
    this.maybeSent = options.maybeSent;
    this.raw = options.raw;
  }
}

export function isRailError(err: unknown): err is RailError {
  return err instanceof RailError;
}

/**
 * How a route tells its client about a rail that failed:
 * - `as_reported`: the rail's own status (502, 503, 504) and message (bank
 *   list, account resolve, beneficiaries);
 * - `unavailable`: always 503 with the route's message and `details.provider`
 *   (opening a collection or reserved account: the client retries later).
 */
export type RailFailureAnswer = { kind: 'as_reported' } | { kind: 'unavailable'; message: string };

/**
 * A rail's failure as the API answers it: `provider_error` (see
 * RailFailureAnswer), or 400 `invalid_request` naming the field for input the
 * rail refused. Anything else is returned as it is.
 */
export function railErrorToAppError(err: unknown, answer: RailFailureAnswer = { kind: 'as_reported' }): unknown {
  if (err instanceof RailInputError) return new AppError('invalid_request', err.message, { details: { field: err.field } });
  if (!(err instanceof RailError)) return err;
  switch (answer.kind) {
    case 'as_reported':
      return new AppError('provider_error', err.message, { status: err.status, cause: err });
    case 'unavailable':
      return new AppError('provider_error', answer.message, { status: 503, details: { provider: err.provider }, cause: err });
  }
}

/** Runs a rail call with its failures answered as `railErrorToAppError` says. */
export async function withRailErrors<T>(fn: () => Promise<T>, answer?: RailFailureAnswer): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw railErrorToAppError(err, answer);
  }
}

import { AppError } from '@cowrie/core';
import { RailError, RailInputError } from '@cowrie/rails';

/** A rail failure as the interface reports it: provider_error 502/503/504, or 400 for refused input. */
export function railErrorToAppError(err: unknown): unknown {
  if (err instanceof RailError) return new AppError('provider_error', err.message, { status: err.status, cause: err });
  if (err instanceof RailInputError) return new AppError('invalid_request', err.message, { details: { field: err.field } });
  return err;
}

/** Runs a synchronous rail call (bank list, resolve) with its failures mapped for the API. */
export async function withRailErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw railErrorToAppError(err);
  }
}

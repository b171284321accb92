import { AppError, Decimal, parseAmount } from '@cowrie/core';

/** Largest `expires_in`: a one-off account stays open at most a year. */
export const MAX_EXPIRES_IN_SECONDS = 365 * 24 * 3600;
export const MIN_EXPIRES_IN_SECONDS = 60;
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const MIN_COLLECTION_AMOUNT = new Decimal(1);

const invalid = (field: string, message: string) => new AppError('invalid_request', message, { details: { field } });

/** A collection amount: a number (or numeric string) of at least 1, at most 6 decimal places. */
export function parseCollectionAmount(value: unknown, missingMessage = 'amount is required'): Decimal {
  if (value === undefined || value === null) throw invalid('amount', missingMessage);
  const parsed = parseAmount(value);
  if (!parsed.ok) throw invalid('amount', `amount ${parsed.reason}`);
  if (parsed.value.lessThan(MIN_COLLECTION_AMOUNT)) throw invalid('amount', 'amount must be at least 1');
  return parsed.value;
}

/** `expires_in`: whole seconds, minimum 60, default 3600. */
export function parseExpiresIn(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_EXPIRES_IN_SECONDS;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid('expires_in', 'expires_in must be an integer (seconds)');
  if (value < MIN_EXPIRES_IN_SECONDS) throw invalid('expires_in', `expires_in must be at least ${MIN_EXPIRES_IN_SECONDS}`);
  if (value > MAX_EXPIRES_IN_SECONDS) throw invalid('expires_in', `expires_in must be at most ${MAX_EXPIRES_IN_SECONDS}`);
  return value;
}

/** A currency code, uppercased; default NGN. */
export function parseCurrency(value: unknown): string {
  if (value === undefined || value === null) return 'NGN';
  if (typeof value !== 'string' || !/^[A-Za-z]{3,4}$/.test(value.trim())) throw invalid('currency', 'currency must be a 3 or 4 letter currency code');
  return value.trim().toUpperCase();
}

/** A client reference: 1 to 100 printable characters; absent means "generate one". */
export function parseReference(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid('reference', 'reference must be a string');
  const trimmed = value.trim();
  if (!trimmed) throw invalid('reference', 'reference must not be empty');
  if (trimmed.length > 100) throw invalid('reference', 'reference must be at most 100 characters');
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw invalid('reference', 'reference must not contain control characters');
  return trimmed;
}

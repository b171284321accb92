import { z } from 'zod';
import { parseAmount } from './money';

/**
 * The request fields several routes share, each written once as a zod schema:
 * the route registry validates requests with them and writes them into the
 * API document, so the rule and its documentation cannot differ. Messages are
 * predicates ("must be at least 1"); the gateway prefixes the field name.
 */

/** Longest email address SMTP can carry (RFC 5321 path limit). */
export const EMAIL_MAX_LENGTH = 254;

/** An amount in major units: a JSON number or numeric string, at least `min` (default 1), at most 6 fractional digits, read exactly. */
export function amountField({ min = 1, missing }: { min?: number; missing?: string } = {}) {
  return z
    .any()
    .transform((value, ctx) => {
      if (value === undefined || value === null) {
        if (missing) ctx.addIssue({ code: 'custom', message: missing });
        else ctx.addIssue({ code: 'invalid_type', expected: 'number', input: undefined });
        return z.NEVER;
      }
      const parsed = parseAmount(value);
      if (parsed.kind === 'invalid') {
        ctx.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }
      if (parsed.value.lessThan(min)) {
        ctx.addIssue({ code: 'custom', message: `must be at least ${min}` });
        return z.NEVER;
      }
      return parsed.value;
    })
    .meta({ type: ['number', 'string'], description: `Major units, minimum ${min}, at most 6 fractional digits` });
}

/** A currency code: 3 or 4 letters, uppercased (NGN, USDT). Whether it is supported is the catalog's question. */
export const currencyCodeField = z
  .string('must be a 3 or 4 letter currency code')
  .trim()
  .regex(/^[A-Za-z]{3,4}$/, 'must be a 3 or 4 letter currency code')
  .transform((code) => code.toUpperCase())
  .meta({ description: 'Currency code, uppercased by the API' });

/** Required text, trimmed: 1 to `max` characters. */
export const textField = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** Optional text, trimmed: null or an empty string count as absent. */
export const optionalTextField = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : undefined));

/** A bank account number (NUBAN and longer foreign forms): letters and digits. */
export const accountNumberField = textField(34).regex(/^[A-Za-z0-9]+$/, 'must contain only letters and digits');

/** A bank code as the rails list them: letters, digits and dashes. */
export const bankCodeField = textField(20).regex(/^[A-Za-z0-9-]+$/, 'must contain only letters, digits and dashes');

/** An email address of at most EMAIL_MAX_LENGTH characters. */
export const emailField = z.email('must be an email address').max(EMAIL_MAX_LENGTH, `must be at most ${EMAIL_MAX_LENGTH} characters`);

/** A client's own reference: 1 to 100 printable characters, trimmed. */
export const clientReferenceField = z
  .string('must be a string')
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

// The times a request may name: what every database column and driver holds (year 0 does not reach Postgres).
const EARLIEST_TIME_MS = Date.UTC(1970, 0, 1);
const LATEST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether a time lies within the years a request may name (1970 to 9999). */
export const isNameableTime = (ms: number): boolean => ms >= EARLIEST_TIME_MS && ms <= LATEST_TIME_MS;

/** An ISO 8601 time with its offset, in the years 1970 to 9999, as the string given. */
export const isoTimeField = z.iso
  .datetime({ offset: true })
  .refine((v) => isNameableTime(Date.parse(v)), 'must be a time between the years 1970 and 9999')
  .meta({ format: 'date-time' });

/** A time in a query string (`from`, `to`): isoTimeField, as a Date. */
export const queryTimeField = isoTimeField.transform((v) => new Date(v));

const INT4_MAX = 2_147_483_647;
const INT8_MAX = 9_223_372_036_854_775_807n;

/** A positive database id (Postgres int4). */
export const idField = z.number().int().positive().max(INT4_MAX);

/**
 * A row id from a URL path (int4). Anything that is not one, a word or an
 * id out of range included, is simply not found: `notFound` is thrown.
 */
export function parsePathId(raw: unknown, notFound: () => Error): number {
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(id >= 1 && id <= INT4_MAX)) throw notFound();
  return id;
}

/** parsePathId for an int8 id (a bigint). */
export function parseBigPathId(raw: unknown, notFound: () => Error): bigint {
  const id = typeof raw === 'string' && /^\d{1,19}$/.test(raw) ? BigInt(raw) : -1n;
  if (id < 1n || id > INT8_MAX) throw notFound();
  return id;
}

/** Longest grace period of a roll (an API key, a webhook secret): a week. */
export const ROLL_GRACE_MAX_SECONDS = 7 * 24 * 3600;

/**
 * How long the replaced credential of a roll keeps working, in seconds: 0 (it
 * stops now) to a week, a day when absent. `what` names it in the description.
 */
export const rollGraceSecondsField = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(ROLL_GRACE_MAX_SECONDS, `must be at most ${ROLL_GRACE_MAX_SECONDS} (7 days)`)
    .default(24 * 3600)
    .meta({ description: `How long ${what}, in seconds (default 86400: a day; 0: it stops now; at most 604800: a week)` });

import DecimalJs from 'decimal.js';

/**
 * Exact decimals for every amount. decimal.js rounds to 20 significant digits
 * by default, which would let a sum such as amount + fees drift above about
 * 1e14; this one keeps 40, more than NUMERIC(30,6) can hold, so every sum and
 * product of stored amounts is exact. (A clone: other users of decimal.js keep
 * their own settings.)
 */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_EVEN });

export type Decimal = DecimalJs;
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace Decimal {
  type Value = DecimalJs.Value;
}

/** Fractional digits kept and rendered for every amount. */
export const MONEY_SCALE = 6;
/**
 * Largest amount one operation accepts: one trillion in major units. Its
 * amount plus fees is exact everywhere (NUMERIC(30,6), 40-digit decimals) and
 * its minor units (kobo) stay below 2^53, so no rail integer can be rounded.
 */
export const MAX_AMOUNT = new Decimal('1e12');

const AMOUNT_PATTERN = /^\d+(\.\d+)?$/;

/**
 * A JSON number a double cannot hold exactly (1.0000000000000001,
 * 999999999999999.999999), kept as the client wrote it. The gateway's JSON
 * parser hands these over instead of a rounded double, so the amount rules see
 * the real value; every other field refuses them as not a number.
 */
export class JsonNumberText {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/**
 * Parses an amount from a request (a JSON number or a numeric string) into an
 * exact Decimal. Returns an error text instead of throwing, for validators.
 */
export function parseAmount(input: unknown): { kind: 'valid'; value: Decimal } | { kind: 'invalid'; reason: string } {
  let text: string;
  if (input instanceof JsonNumberText) {
    // The digits the client sent, read exactly; an exponent form is bounded
    // before it is written out (1e999999999 must not become a billion digits).
    const exact = new Decimal(input.text);
    if (exact.isNegative()) return { kind: 'invalid', reason: 'must not be negative' };
    if (exact.greaterThan(MAX_AMOUNT)) return { kind: 'invalid', reason: `must be at most ${MAX_AMOUNT.toFixed()}` };
    if (exact.decimalPlaces() > MONEY_SCALE) return { kind: 'invalid', reason: `must have at most ${MONEY_SCALE} decimal places` };
    // Below decimal.js's smallest exponent (1e-9e15) a non-zero number reads as
    // 0 (above its largest, as Infinity, refused just above): a fraction that
    // small is far finer than 6 decimals, never a zero amount.
    if (exact.isZero() && /[1-9]/.test(input.text.split(/[eE]/)[0]!)) {
      return { kind: 'invalid', reason: `must have at most ${MONEY_SCALE} decimal places` };
    }
    text = exact.toFixed();
  } else if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { kind: 'invalid', reason: 'must be a finite number' };
    // A double's shortest decimal form is what the client wrote: the gateway's
    // parser turns any number a double cannot hold exactly into JsonNumberText.
    text = String(input);
    if (/e/i.test(text)) text = new Decimal(input).toFixed();
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return { kind: 'invalid', reason: 'must be a number' };
  }
  if (text.startsWith('-')) return { kind: 'invalid', reason: 'must not be negative' };
  if (!AMOUNT_PATTERN.test(text)) return { kind: 'invalid', reason: 'must be a number' };
  const value = new Decimal(text);
  if (value.decimalPlaces() > MONEY_SCALE) return { kind: 'invalid', reason: `must have at most ${MONEY_SCALE} decimal places` };
  if (value.greaterThan(MAX_AMOUNT)) return { kind: 'invalid', reason: `must be at most ${MAX_AMOUNT.toFixed()}` };
  return { kind: 'valid', value };
}

/** Renders an amount the way every response does: `"1500.000000"`. */
export function formatAmount(value: Decimal.Value | { toString(): string }): string {
  return new Decimal(typeof value === 'object' && !(value instanceof Decimal) ? value.toString() : value).toFixed(MONEY_SCALE, Decimal.ROUND_HALF_EVEN);
}

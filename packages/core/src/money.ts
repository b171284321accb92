import Decimal from 'decimal.js';

export { Decimal };

/** Fractional digits kept and rendered for every amount. */
export const MONEY_SCALE = 6;
/** Largest amount accepted (NUMERIC(30,6) leaves 24 integer digits; we keep well inside it). */
export const MAX_AMOUNT = new Decimal('1e15');

const AMOUNT_PATTERN = /^\d+(\.\d+)?$/;

/**
 * Parses an amount from a request (a JSON number or a numeric string) into an
 * exact Decimal. Returns an error text instead of throwing, for validators.
 */
export function parseAmount(input: unknown): { ok: true; value: Decimal } | { ok: false; reason: string } {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, reason: 'must be a finite number' };
    // JSON numbers arrive as doubles; their shortest decimal form is what the client wrote.
    text = String(input);
    if (/e/i.test(text)) text = new Decimal(input).toFixed();
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return { ok: false, reason: 'must be a number' };
  }
  if (text.startsWith('-')) return { ok: false, reason: 'must not be negative' };
  if (!AMOUNT_PATTERN.test(text)) return { ok: false, reason: 'must be a number' };
  const value = new Decimal(text);
  if (value.decimalPlaces() > MONEY_SCALE) return { ok: false, reason: `must have at most ${MONEY_SCALE} decimal places` };
  if (value.greaterThan(MAX_AMOUNT)) return { ok: false, reason: `must be at most ${MAX_AMOUNT.toFixed()}` };
  return { ok: true, value };
}

/** Renders an amount the way every response does: `"1500.000000"`. */
export function formatAmount(value: Decimal.Value | { toString(): string }): string {
  return new Decimal(typeof value === 'object' && !(value instanceof Decimal) ? value.toString() : value).toFixed(
    MONEY_SCALE,
    Decimal.ROUND_HALF_EVEN,
  );
}

/**
 * Amounts are the API's decimal strings (NUMERIC(30,6): "1500.000000"). For
 * people, in lists and cards: the reader's locale and the currency's symbol
 * and digits (₦1,500.00), never through a float where the browser formats the
 * decimal string itself. Exact, in detail views, confirmations and exports:
 * the API's string and the currency's code, as they are (1500.000000 NGN).
 */
export type AmountStyle = 'people' | 'exact';

const FORMATS = new Map<string, Intl.NumberFormat | null>();

/** The reader's format of `currency`, or null when the browser knows no such currency. */
function formatOf(currency: string): Intl.NumberFormat | null {
  let format = FORMATS.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' });
    } catch {
      format = null;
    }
    FORMATS.set(currency, format);
  }
  return format;
}

/** The one way the dashboard writes an amount: `people` (₦1,500.00) or `exact` (1500.000000 NGN). */
export function formatAmount(value: string, currency: string, style: AmountStyle = 'people'): string {
  const format = style === 'people' ? formatOf(currency) : null;
  // A decimal string is formatted as that decimal (Intl.NumberFormat v3), not as the nearest float.
  return format && isDecimal(value) ? format.format(value) : `${value} ${currency}`.trim();
}

function isDecimal(value: string): value is `${number}` {
  return /^-?\d+(\.\d+)?$/.test(value);
}

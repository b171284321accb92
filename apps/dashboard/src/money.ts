/**
 * Amounts are the API's decimal strings (NUMERIC(30,6): "1500.000000"). For
 * people, in lists and cards: the reader's locale and the currency's symbol
 * and digits (₦1,500.00), never through a float where the browser formats the
 * decimal string itself. Exact, in detail views, confirmations and exports:
 * the API's string and the currency's code, as they are (1500.000000 NGN).
 */
export type AmountStyle = 'people' | 'exact';

const FORMATS = new Map<string, { format: Intl.NumberFormat; code: boolean }>();

/**
 * The reader's format of `currency`: its symbol and digits for an ISO 4217
 * code; for another (a token such as USDT) grouped digits, two to six
 * decimals, and the code after them.
 */
function formatOf(currency: string): { format: Intl.NumberFormat; code: boolean } {
  let format = FORMATS.get(currency);
  if (format === undefined) {
    try {
      format = { format: new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' }), code: false };
    } catch {
      format = { format: new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 }), code: true };
    }
    FORMATS.set(currency, format);
  }
  return format;
}

/** The one way the dashboard writes an amount: `people` (₦1,500.00) or `exact` (1500.000000 NGN). */
export function formatAmount(value: string, currency: string, style: AmountStyle = 'people'): string {
  if (style === 'exact' || !isDecimal(value)) return `${value} ${currency}`.trim();
  const { format, code } = formatOf(currency);
  // A decimal string is formatted as that decimal (Intl.NumberFormat v3), not as the nearest float.
  return code ? `${format.format(value)} ${currency}` : format.format(value);
}

function isDecimal(value: string): value is `${number}` {
  return /^-?\d+(\.\d+)?$/.test(value);
}

/**
 * The wallet catalog: every currency a workspace holds a wallet in, and whether
 * payouts in it run on live rails, sandbox rails, or not yet (501).
 */
export type CurrencyStatus = 'live' | 'sandbox' | 'coming_soon';

export const WALLET_CATALOG: ReadonlyArray<{ currency: string; status: CurrencyStatus }> = [
  { currency: 'NGN', status: 'live' },
  { currency: 'EUR', status: 'sandbox' },
  { currency: 'GBP', status: 'sandbox' },
  { currency: 'USD', status: 'coming_soon' },
  { currency: 'USDT', status: 'coming_soon' },
  { currency: 'JPY', status: 'coming_soon' },
];

export function currencyStatus(currency: string): CurrencyStatus | undefined {
  return WALLET_CATALOG.find((c) => c.currency === currency.toUpperCase())?.status;
}

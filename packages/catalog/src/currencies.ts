import { WALLET_CURRENCIES, type WalletCurrency } from '@cowrie/core';

/**
 * The wallet catalog: every currency a workspace holds a wallet in, and whether
 * payouts in it run on live rails, sandbox rails, or not yet (501).
 */
export type CurrencyStatus = 'live' | 'sandbox' | 'coming_soon';

const STATUS: Record<WalletCurrency, CurrencyStatus> = {
  NGN: 'live',
  EUR: 'sandbox',
  GBP: 'sandbox',
  USD: 'coming_soon',
  USDT: 'coming_soon',
  JPY: 'coming_soon',
};

/** In the order of WALLET_CURRENCIES (@cowrie/core, where loadConfig checks the deposit channels' currencies against it). */
export const WALLET_CATALOG: ReadonlyArray<{ currency: string; status: CurrencyStatus }> = WALLET_CURRENCIES.map((currency) => ({
  currency,
  status: STATUS[currency],
}));

export function currencyStatus(currency: string): CurrencyStatus | undefined {
  return WALLET_CATALOG.find((c) => c.currency === currency.toUpperCase())?.status;
}

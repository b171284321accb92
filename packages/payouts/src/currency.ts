import { AppError } from '@cowrie/core';
import { currencyStatus } from '@cowrie/catalog';

/**
 * Pre-flight check 1: the currency, uppercased, must be in the wallet catalog
 * (else 400) and not `coming_soon` (else 501).
 */
export function checkPayoutCurrency(input: string): string {
  const currency = input.trim().toUpperCase();
  const status = currencyStatus(currency);
  if (!status) throw new AppError('invalid_request', `Unsupported currency: ${currency}`, { details: { field: 'currency' } });
  if (status === 'coming_soon') throw new AppError('coming_soon', `Payouts in ${currency} are coming soon`, { details: { currency } });
  return currency;
}

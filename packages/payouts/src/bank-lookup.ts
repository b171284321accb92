import { AppError, withRailErrors } from '@cowrie/core';
import { currencyStatus } from '@cowrie/catalog';
import type { Rails } from '@cowrie/rails';

/** GET /v1/banks: the NGN rail's banks (the country is accepted; the NGN rail lists Nigerian banks). */
export function listBanks(rails: Rails) {
  return withRailErrors(() => rails.banks(rails.forCurrency('NGN')));
}

/** POST /v1/banks/resolve: the account name at a listed bank, through the currency's rail. */
export async function resolveBankAccount(rails: Rails, input: { accountNumber: string; bankCode: string; currency: string }) {
  const currency = input.currency.trim().toUpperCase();
  if (!currencyStatus(currency)) throw new AppError('invalid_request', `Unsupported currency: ${currency}`, { details: { field: 'currency' } });
  return withRailErrors(async () => {
    const rail = rails.forCurrency(currency);
    return rail.resolveAccount({ accountNumber: input.accountNumber, bankCode: input.bankCode });
  });
}

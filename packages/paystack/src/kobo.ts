import { RailInputError, type Decimal } from '@cowrie/core';

/**
 * Naira as Paystack counts them: the integer number of kobo, as its exact
 * digits (never through a double, whatever the precision Decimal computes
 * with). An amount finer than a kobo cannot be sent exactly and is refused
 * as the caller's input (RailInputError on `amount`, saying `refusal`: each
 * rail words it as its interface always has).
 */
export function toKobo(amount: Decimal, refusal: string): string {
  if (!amount.isFinite() || amount.decimalPlaces() > 2) throw new RailInputError(refusal, 'amount');
  // toFixed(2) writes every digit (no exponent, no rounding once there are at most 2 decimals).
  return BigInt(amount.toFixed(2).replace('.', '')).toString();
}

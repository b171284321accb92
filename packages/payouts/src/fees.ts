import { Decimal, type FeeRule } from '@cowrie/core';

/**
 * The fee of a payout from the fee schedule (PAYOUT_FEE_SCHEDULE): the rule of
 * its currency, else the "*" rule, else none. `flat + amount * percent / 100`,
 * capped at `cap`, rounded half-up to 6 places.
 */
export function payoutFee(schedule: Record<string, FeeRule>, currency: string, amount: Decimal): Decimal {
  const rule = schedule[currency.toUpperCase()] ?? schedule['*'];
  if (!rule) return new Decimal(0);
  let fee = new Decimal(rule.flat).plus(amount.times(rule.percent).dividedBy(100));
  if (rule.cap !== undefined) fee = Decimal.min(fee, new Decimal(rule.cap));
  return fee.toDecimalPlaces(6, Decimal.ROUND_HALF_UP);
}

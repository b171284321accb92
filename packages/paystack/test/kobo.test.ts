// Risk: a naira amount sent to Paystack as a neighbouring number of kobo (rounded
// through a double, or by Decimal's working precision), or an amount finer than
// a kobo sent rounded instead of refused. Both rails convert through toKobo.
import { Decimal, RailInputError } from '@cowrie/core';
import { toKobo } from '../src';

const REFUSAL = 'amount must have at most 2 decimal places';

test.each([
  ['1500.5', '150050'],
  ['2500.50', '250050'],
  ['10', '1000'],
  ['0.05', '5'],
  ['10.500000', '1050'],
  // 1e15 + 0.01 naira: a double would give ...000000.
  ['1000000000000000.01', '100000000000000001'],
  // More digits than Decimal computes with (40): a multiplication would round them.
  ['123456789012345678901234567890123456789012.34', '12345678901234567890123456789012345678901234'],
])('%s naira is %s kobo, digit for digit', (naira, kobo) => {
  expect(toKobo(new Decimal(naira), REFUSAL)).toBe(kobo);
});

test.each([
  '10.001',
  '0.005',
  '2500.505',
  // Finer than a kobo beyond Decimal's precision: a multiplication would round it to a whole kobo and accept it.
  '1234567890123456789012345678901234567890.001',
  'NaN',
  'Infinity',
])('%s is refused as input on amount, with the caller’s wording', (naira) => {
  let thrown: unknown;
  try {
    toKobo(new Decimal(naira), REFUSAL);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(RailInputError);
  expect(thrown).toMatchObject({ field: 'amount', message: REFUSAL });
});

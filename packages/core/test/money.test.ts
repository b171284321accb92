import { Decimal, JsonNumberText, formatAmount, parseAmount } from '../src/money';

test.each([
  [1, '1.000000'],
  [250.5, '250.500000'],
  ['1500', '1500.000000'],
  [0.000001, '0.000001'],
  [1e6, '1000000.000000'],
  ['123456789012.123456', '123456789012.123456'],
])('parseAmount(%p) renders %s exactly', (input, expected) => {
  const parsed = parseAmount(input);
  expect(parsed.kind).toBe('valid');
  if (parsed.kind === 'valid') expect(formatAmount(parsed.value)).toBe(expected);
});

test.each([
  ['more than 6 decimals', 1.0000001],
  ['a negative number', -5],
  ['a numeric string with junk', '12abc'],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['an absurd amount', 1e30],
  ['a boolean', true],
  ['null', null],
  ['an object', { value: 1 }],
  ['an empty string', ''],
  ['hex', '0x10'],
])('parseAmount refuses %s', (_name, input) => {
  expect(parseAmount(input).kind).toBe('invalid');
});

test('no float drift: 0.1 + 0.2 style amounts stay exact', () => {
  const a = parseAmount(0.1);
  const b = parseAmount(0.2);
  if (a.kind === 'invalid' || b.kind === 'invalid') throw new Error('parse failed');
  expect(formatAmount(a.value.plus(b.value))).toBe('0.300000');
});

test.each([
  ['999999999999999.999999', /at most 1000000000000/],
  ['1.0000000000000001', /at most 6 decimal places/],
  ['1e999999999', /at most 1000000000000/],
  ['1e-999999999', /at most 6 decimal places/],
  // Beyond decimal.js's exponent range: these would become Infinity and 0.
  ['1e99999999999999999', /at most 1000000000000/],
  ['1e-99999999999999999', /at most 6 decimal places/],
  ['0.5e-9000000000000001', /at most 6 decimal places/],
  ['-12345678901234567', /negative/],
])('an exact JSON number %s a double cannot hold is refused for what it is, not rounded', (text, reason) => {
  const parsed = parseAmount(new JsonNumberText(text));
  expect(parsed).toEqual({ kind: 'invalid', reason: expect.stringMatching(reason) });
});

test('an exact JSON zero with an exponent is still zero, for the amount rules to refuse', () => {
  expect(parseAmount(new JsonNumberText('0e-99999999999999999'))).toMatchObject({ kind: 'valid' });
  expect(parseAmount(new JsonNumberText('0.000000000000000000'))).toMatchObject({ kind: 'valid' });
});

test('the largest amount, with six decimals and its fees, stays exact', () => {
  const parsed = parseAmount(new JsonNumberText('999999999999.999999'));
  if (parsed.kind === 'invalid') throw new Error(parsed.reason);
  expect(formatAmount(parsed.value)).toBe('999999999999.999999');
  const fees = parseAmount('12345.678901');
  if (fees.kind === 'invalid') throw new Error(fees.reason);
  expect(formatAmount(parsed.value.plus(fees.value))).toBe('1000000012345.678900');
  expect(parsed.value.times(100).toFixed(0, Decimal.ROUND_DOWN)).toBe('99999999999999');
  expect(parseAmount('1000000000000.000001').kind).toBe('invalid');
});

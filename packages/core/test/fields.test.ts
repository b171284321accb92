// Risk: a shared request field drifts from the API's rule (an amount
// below 1 or finer than 6 decimals accepted, a currency not uppercased, an
// amount read through a double). Every route that takes these fields uses
// these schemas, so the rule is tested here once.
import { Decimal } from '../src/money';
import {
  accountNumberField,
  amountField,
  bankCodeField,
  clientReferenceField,
  currencyCodeField,
  emailField,
  optionalTextField,
  rollGraceSecondsField,
  textField,
} from '../src/fields';

const issueOf = (result: { success: boolean; error?: { issues: Array<{ code: string; message: string }> } }) => result.error?.issues[0];

describe('amountField', () => {
  test('reads numbers and numeric strings exactly, as Decimal', () => {
    expect(amountField().parse(1)).toEqual(new Decimal(1));
    const big = amountField().parse('999999999999.123456') as Decimal;
    expect(big.toFixed()).toBe('999999999999.123456');
  });

  test.each([
    [0.99, 'must be at least 1'],
    [-5, 'must not be negative'],
    ['ten', 'must be a number'],
    [1.1234567, 'must have at most 6 decimal places'],
    [true, 'must be a number'],
  ])('%p is refused: %s', (value, message) => {
    expect(issueOf(amountField().safeParse(value))?.message).toBe(message);
  });

  test('a missing amount is a missing field, or the caller’s own message', () => {
    expect(issueOf(amountField().safeParse(undefined))?.code).toBe('invalid_type');
    expect(issueOf(amountField({ missing: 'is required for this channel' }).safeParse(null))?.message).toBe('is required for this channel');
  });

  test('the minimum is the caller’s', () => {
    expect((amountField({ min: 100 }).parse(100) as Decimal).toFixed()).toBe('100');
    expect(issueOf(amountField({ min: 100 }).safeParse(99))?.message).toBe('must be at least 100');
  });
});

describe('currencyCodeField', () => {
  test('3 or 4 letters, trimmed and uppercased', () => {
    expect(currencyCodeField.parse(' ngn ')).toBe('NGN');
    expect(currencyCodeField.parse('usdt')).toBe('USDT');
  });

  test.each(['naira!', 'NG', 'NGNNN', '', 7])('%p is refused', (value) => {
    expect(issueOf(currencyCodeField.safeParse(value))?.message).toBe('must be a 3 or 4 letter currency code');
  });
});

describe('text, account and reference fields', () => {
  test('required text is trimmed and bounded', () => {
    expect(textField(5).parse('  ab ')).toBe('ab');
    expect(issueOf(textField(5).safeParse('   '))?.message).toBe('must not be empty');
    expect(issueOf(textField(5).safeParse('abcdef'))?.message).toBe('must be at most 5 characters');
  });

  test('optional text: null and empty count as absent', () => {
    expect(optionalTextField(5).parse(null)).toBeUndefined();
    expect(optionalTextField(5).parse('  ')).toBeUndefined();
    expect(optionalTextField(5).parse(' a ')).toBe('a');
  });

  test('account numbers and bank codes', () => {
    expect(accountNumberField.parse('0123456789')).toBe('0123456789');
    expect(issueOf(accountNumberField.safeParse("01' OR 1=1"))?.message).toBe('must contain only letters and digits');
    expect(bankCodeField.parse('058-x')).toBe('058-x');
    expect(issueOf(bankCodeField.safeParse('05 8'))?.message).toBe('must contain only letters, digits and dashes');
  });

  test('client references: printable, 1 to 100 characters', () => {
    expect(clientReferenceField.parse(' order-1 ')).toBe('order-1');
    expect(issueOf(clientReferenceField.safeParse('a\u0007b'))?.message).toBe('must not contain control characters');
    expect(issueOf(clientReferenceField.safeParse('x'.repeat(101)))?.message).toBe('must be at most 100 characters');
  });

  test('emails', () => {
    expect(emailField.parse('a@b.co')).toBe('a@b.co');
    expect(issueOf(emailField.safeParse('not-an-email'))?.message).toBe('must be an email address');
    expect(emailField.safeParse(`${'a'.repeat(250)}@b.co`).success).toBe(false);
  });
});

test('a roll grace period is 0 to a week in whole seconds, a day when absent', () => {
  const field = rollGraceSecondsField('the old key keeps working');
  expect(field.parse(undefined)).toBe(86400);
  expect(field.parse(0)).toBe(0);
  expect(field.parse(604800)).toBe(604800);
  for (const bad of [-1, 604801, 1.5, '60', null]) expect(field.safeParse(bad).success).toBe(false);
  expect(field.safeParse(604801).error?.issues[0]?.message).toBe('must be at most 604800 (7 days)');
});

// Risk: predictable or short codes; a stored form that reveals the code; a
// comparison that accepts a near miss.
import { codeMatches, generateCode, hashCode, newCodeSalt, SUPPLIED_CODE_PATTERN } from '../src/code';

test('generated codes are 4 digits, leading zeros kept, and spread over the range', () => {
  const seen = new Set<string>();
  let leadingZero = false;
  for (let i = 0; i < 2000; i += 1) {
    const code = generateCode();
    expect(code).toMatch(/^\d{4}$/);
    seen.add(code);
    if (code.startsWith('0')) leadingZero = true;
  }
  expect(leadingZero).toBe(true);
  expect(seen.size).toBeGreaterThan(1500);
});

test('supplied codes must be 4 to 8 digits', () => {
  for (const ok of ['0000', '1234', '12345678']) expect(SUPPLIED_CODE_PATTERN.test(ok)).toBe(true);
  for (const bad of ['123', '123456789', '12a4', ' 1234', '1234 ', '１２３４', '']) expect(SUPPLIED_CODE_PATTERN.test(bad)).toBe(false);
});

test('the hash is salted: one code under two salts gives two hashes, neither containing the code', () => {
  const a = newCodeSalt();
  const b = newCodeSalt();
  expect(a).not.toBe(b);
  expect(hashCode('4821', a)).not.toBe(hashCode('4821', b));
  expect(hashCode('4821', a)).toMatch(/^[0-9a-f]{64}$/);
  expect(hashCode('4821', a)).not.toContain('4821');
});

test('only the exact code matches', () => {
  const salt = newCodeSalt();
  const hash = hashCode('4821', salt);
  expect(codeMatches('4821', salt, hash)).toBe(true);
  for (const wrong of ['4820', '482', '48210', ' 4821', '', '4821\n']) expect(codeMatches(wrong, salt, hash)).toBe(false);
  expect(codeMatches('4821', newCodeSalt(), hash)).toBe(false);
});

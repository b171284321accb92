import { constantTimeEqual, decryptSecret, encryptSecret } from '../src/crypto';

const key = 'ab'.repeat(32);

test('a sealed secret opens with its key only, and never contains the plaintext', () => {
  const sealed = encryptSecret('123456', key);
  expect(sealed).not.toContain('123456');
  expect(decryptSecret(sealed, key)).toBe('123456');
  expect(encryptSecret('123456', key)).not.toBe(sealed);
  expect(() => decryptSecret(sealed, 'cd'.repeat(32))).toThrow();
  const [v, iv, tag, body] = sealed.split('.');
  expect(() => decryptSecret([v, iv, tag, body!.slice(0, -2) + 'AA'].join('.'), key)).toThrow();
});

test('constantTimeEqual compares exactly', () => {
  expect(constantTimeEqual('abc', 'abc')).toBe(true);
  expect(constantTimeEqual('abc', 'abd')).toBe(false);
  expect(constantTimeEqual('abc', 'abcd')).toBe(false);
});

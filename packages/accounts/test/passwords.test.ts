import { decoyPasswordHash, setPasswordHashCost } from '../src/password-cost';
import { hashPassword, needsRehash, passwordProblem, verifyPassword } from '../src/passwords';

test.each([
  ['', /at least 12 characters/],
  ['elevenchars', /at least 12 characters/],
  ['x'.repeat(201), /at most 200 characters/],
  // On the shipped list of common passwords (any case), or one of them with digits or symbols around it.
  ['qwerty123456', /common/],
  ['QWERTY123456', /common/],
  ['1q2w3e4r5t6y', /common/],
  ['password123456', /common/],
  ['Sunshine2024!!', /common/],
  ['!!iloveyou!!1', /common/],
  ['aaaaaaaaaaaa', /common/],
])('%j is refused', (password, problem) => {
  expect(passwordProblem(password)).toMatch(problem);
});

test.each(['correct horse battery staple', 'Tr0ub4dor&3-plus-more', 'twelve chars', 'ab'.repeat(100)])('%j is accepted', (password) => {
  expect(passwordProblem(password)).toBeNull();
});

describe('the hashing cost', () => {
  afterEach(() => setPasswordHashCost('production'));

  test("new hashes use OWASP's minimum (N=2^17, r=8, p=1) unless a test lowers it; older ones still verify and ask to be remade", async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(needsRehash(stored)).toBe(false);
    expect(decoyPasswordHash()).toMatch(/^scrypt\$131072\$8\$1\$/);

    setPasswordHashCost('test');
    const cheap = await hashPassword('correct horse battery staple');
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(decoyPasswordHash()).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse battery staple', cheap)).toBe(true);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('wrong horse battery staple', cheap)).toBe(false);

    setPasswordHashCost('production');
    expect(needsRehash(cheap)).toBe(true);
    expect(await hashPassword('x')).toMatch(/^scrypt\$131072\$/);
  });

  test("the package's entry does not offer the lower cost: only @cowrie/accounts/testing does", async () => {
    const entry: Record<string, unknown> = await import('../src');
    expect(entry.setPasswordHashCost).toBeUndefined();
    expect((await import('@cowrie/accounts/testing')).setPasswordHashCost).toBe(setPasswordHashCost);
  });
});

import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

// scrypt is memory-hard and in Node itself (no native download). N=2^15, r=8
// costs ~32 MiB and ~50 ms per hash: slow for guessing, fine for a login.
const PARAMS = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 32;
const maxmem = 128 * PARAMS.N * PARAMS.r * 2;

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...PARAMS, maxmem });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const N = Number(n);
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N, r: Number(r), p: Number(p), maxmem: 128 * N * Number(r) * 2,
  });
  return timingSafeEqual(key, expected);
}

/** Checks a new password: 8 to 200 characters. Returns the problem, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < 8) return 'must be at least 8 characters';
  if (password.length > 200) return 'must be at most 200 characters';
  return null;
}

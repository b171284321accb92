import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { passwordHashParams as currentParams } from './password-cost';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

// scrypt is memory-hard and in Node itself (no native download); its
// parameters (OWASP's minimum, N=2^17, r=8, p=1) are in password-cost.ts.
// Hashes made with older parameters still verify, and are remade on the next
// sign-in (needsRehash).
const KEY_LENGTH = 32;
const memoryOf = (N: number, r: number) => 128 * N * r * 2;

/**
 * At most this many hashes run at once in a process; the others wait their
 * turn. Each takes a libuv thread, a whole core and ~128 MiB for its run, so
 * a burst of sign-ins must not take every thread (DNS lookups and file reads
 * share them), the memory, nor every core: one core stays for the event
 * loop, or every other request waits behind the hashing (two at most; one on
 * a two-core machine).
 */
export const PASSWORD_HASH_CONCURRENCY = Math.max(1, Math.min(2, availableParallelism() - 1));
let running = 0;
let started = 0;
const waiting: Array<() => void> = [];

/** Runs `fn` when fewer than PASSWORD_HASH_CONCURRENCY hashes are running (first come, first served). */
export async function withHashSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= PASSWORD_HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  started += 1;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Hashes running or waiting for a slot right now, and how many this process has started in all (for tests and metrics). */
export const passwordHashesInFlight = () => ({ running, waiting: waiting.length, started });

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = currentParams();
  const key = await withHashSlot(() => scrypt(password, salt, KEY_LENGTH, { ...params, maxmem: memoryOf(params.N, params.r) }));
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const N = Number(n);
  const key = await withHashSlot(() =>
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N, r: Number(r), p: Number(p), maxmem: memoryOf(N, Number(r)) }),
  );
  return timingSafeEqual(key, expected);
}

/**
 * The hash of a random password nobody kept, made with today's parameters:
 * verified when a sign-in names an unknown email, so that costs one hash
 * like a wrong password does. Made ahead of time, not at the first unknown
 * email (which would then cost two hashes, and tell itself apart).
 */
/** True when a stored hash was made with other parameters than today's: remake it at the next sign-in. */
export function needsRehash(stored: string): boolean {
  const [kind, n, r, p] = stored.split('$');
  const params = currentParams();
  return kind !== 'scrypt' || Number(n) !== params.N || Number(r) !== params.r || Number(p) !== params.p;
}

/** The shortest new password (NIST SP 800-63B asks at least 8; we ask more, as a passphrase is easy to type). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

let commonPasswords: Set<string> | undefined;
/**
 * The ~49,000 most common passwords of public breaches, lower-cased, shipped
 * with zxcvbn-ts (MIT; offline: no request leaves the machine). Decompressed
 * at the first new password, not when the package loads.
 */
function common(): Set<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use: sign-in and the CLI's other commands never pay for it
  commonPasswords ??= new Set((require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common')).dictionary['passwords-common']);
  return commonPasswords;
}

/**
 * Checks a NEW password (existing ones keep working): 12 to 200 characters,
 * and neither a common or breached password (any case) nor one with digits
 * or symbols put around it ("Sunshine2024!"), nor one character repeated.
 * Returns the problem, or null.
 */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  const core = lower.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  const list = common();
  if (list.has(lower) || (core && list.has(core)) || new Set(core || lower).size === 1) {
    return 'is too common: it is, or is built on, a common or breached password; choose another (a few unrelated words make a good one)';
  }
  return null;
}

/** A new password (passwordProblem): at least 12 characters, not a common or breached one. */
export const ZNewPassword = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    const problem = passwordProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

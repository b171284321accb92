import type { RedisClient } from '@cowrie/core';
import { giveBackAttempt, takeAttempt } from './attempt-window';

/** Failed sign-ins per email per window before that email is refused (429) for the rest of it. */
const SIGN_IN_EMAIL_FAILURES = 10;
/** Every sign-in counter's window: 15 minutes from its first failure. */
const SIGN_IN_WINDOW_SECONDS = 900;
/** Past the global budget, each attempt waits this much longer per failure beyond it... */
const SIGN_IN_DELAY_STEP_MS = 100;
/** ...up to this. */
const SIGN_IN_MAX_DELAY_MS = 5000;

export interface SignInLimits {
  keyPrefix: string;
  email: string;
  clientAddress: string;
  /** Failures per client address (AUTH_LOGIN_IP_FAILURE_LIMIT). */
  addressLimit: number;
  /** Failures across every email and address (AUTH_LOGIN_GLOBAL_FAILURE_LIMIT) before attempts are slowed. */
  globalLimit: number;
}

export type SignInAttempt =
  | { kind: 'refused'; retryAfterSeconds: number }
  | {
      kind: 'allowed';
      /** How long to wait before checking the password: 0 within the global budget, then growing with every failure past it. */
      delayMs: number;
      /** A right password: the attempt is not a failure, its places are given back. */
      succeeded(): Promise<void>;
    };

/**
 * Takes one sign-in attempt's places before the password is checked, so
 * concurrent guesses can never pass a limit. Per email and per client address
 * a full window refuses (429); the global budget never refuses (that would
 * lock every real user out during an attack), it slows every attempt
 * instead, more with each failure past it.
 */
export async function takeSignInAttempt(redis: RedisClient, opts: SignInLimits): Promise<SignInAttempt> {
  return takeAttempts(redis, opts, { key: `${opts.keyPrefix}login:${opts.email.toLowerCase()}`, limit: SIGN_IN_EMAIL_FAILURES });
}

/**
 * One check of a second-factor code (a sign-in's second step, a step-up,
 * enrolment's confirmation, turning the factor off), limited as passwords
 * are: per user (by their email, never by a row id, which a new database
 * gives again) on a counter of its own, 10 failures in 15 minutes then 429,
 * and on the same per-address and global counters as sign-ins, so guesses
 * at codes and at passwords from one address add up.
 */
export async function takeSecondFactorAttempt(redis: RedisClient, opts: SignInLimits): Promise<SignInAttempt> {
  return takeAttempts(redis, opts, { key: `${opts.keyPrefix}mfa:${opts.email.toLowerCase()}`, limit: SIGN_IN_EMAIL_FAILURES });
}

async function takeAttempts(redis: RedisClient, opts: Omit<SignInLimits, 'email'>, subject: { key: string; limit: number }): Promise<SignInAttempt> {
  const refusing = [subject, { key: `${opts.keyPrefix}login-ip:${opts.clientAddress}`, limit: opts.addressLimit }];
  const taken: string[] = [];
  const giveBack = () => Promise.all(taken.map((key) => giveBackAttempt(redis, key))).then(() => undefined);
  for (const counter of refusing) {
    const attempt = await takeAttempt(redis, { ...counter, windowSeconds: SIGN_IN_WINDOW_SECONDS });
    if (!attempt.allowed) {
      // The places taken before this counter are given back; a full counter stays full.
      await giveBack();
      return { kind: 'refused', retryAfterSeconds: attempt.retryAfterSeconds };
    }
    taken.push(counter.key);
  }
  const globalKey = `${opts.keyPrefix}login-all`;
  const global = await takeAttempt(redis, { key: globalKey, limit: opts.globalLimit, windowSeconds: SIGN_IN_WINDOW_SECONDS });
  taken.push(globalKey);
  const beyond = global.count - opts.globalLimit;
  return { kind: 'allowed', delayMs: beyond > 0 ? Math.min(SIGN_IN_MAX_DELAY_MS, beyond * SIGN_IN_DELAY_STEP_MS) : 0, succeeded: giveBack };
}

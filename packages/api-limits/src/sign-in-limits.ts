import type { RedisClient } from '@cowrie/core';
import { giveBackAttempt, takeAttempt } from './attempt-window';
import { clientAddressGroup } from './client-address';

/** Failed sign-ins of one email from one client address per window before that pair is refused (429) for the rest of it. */
const SIGN_IN_PAIR_FAILURES = 10;
/** Failed sign-ins of one email from every address per window before each further attempt of that email is slowed (never refused)... */
const SIGN_IN_EMAIL_FREE_FAILURES = 10;
/** ...first by this much, then twice as long with each failure beyond... */
const SIGN_IN_EMAIL_FIRST_DELAY_MS = 250;
/** Wrong second-factor codes of one user from every address per window before their code checks are refused (429) for the rest of it. */
const SECOND_FACTOR_FAILURES = 10;
/** Every sign-in counter's window: 15 minutes from its first failure. */
const SIGN_IN_WINDOW_SECONDS = 900;
/** Past the global budget, each attempt waits this much longer per failure beyond it... */
const SIGN_IN_DELAY_STEP_MS = 100;
/** ...and no attempt waits longer than this, whatever slows it. */
const SIGN_IN_MAX_DELAY_MS = 5000;

export interface SignInLimits {
  keyPrefix: string;
  email: string;
  /** The client's address (an IPv6 one is counted by its /64). */
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
      /** How long to wait before checking the password: 0 within the budgets, then growing with every failure past them (at most 5 s). */
      delayMs: number;
      /** What set the delay: the email's failures from every address, or the failures of all sign-ins; null without one. */
      slowedBy: 'email' | 'global' | null;
      /** A right password (or code): the attempt is not a failure, its places are given back. */
      succeeded(): Promise<void>;
    };

/** The wait of an email's next attempt after `failures` failed ones: none within the free ones, then 250 ms doubling, at most 5 s. */
function emailDelayMs(failures: number): number {
  const beyond = failures - SIGN_IN_EMAIL_FREE_FAILURES;
  if (beyond < 0) return 0;
  return Math.min(SIGN_IN_MAX_DELAY_MS, SIGN_IN_EMAIL_FIRST_DELAY_MS * 2 ** Math.min(beyond, 16));
}

/**
 * Takes one sign-in attempt's places before the password is checked, so
 * concurrent guesses can never pass a limit.
 *
 * Refused (429, until the window ends): a client address (an IPv6 /64) past
 * AUTH_LOGIN_IP_FAILURE_LIMIT failures, and one email from one address past
 * ten. Never refused, only slowed: an email's failures from every address
 * (a stranger who knows an owner's email must not keep the owner out, so
 * past ten failures each attempt of that email waits, twice as long as the
 * last, up to 5 s), and the failures of all sign-ins past the global budget
 * (refusing would lock every real user out during an attack).
 */
export async function takeSignInAttempt(redis: RedisClient, opts: SignInLimits): Promise<SignInAttempt> {
  const email = normalisedEmail(opts.email);
  return takeAttempts(redis, opts, {
    refusing: { key: `${opts.keyPrefix}login-pair:${clientAddressGroup(opts.clientAddress)}:${email}`, limit: SIGN_IN_PAIR_FAILURES },
    slowingKey: `${opts.keyPrefix}login-email:${email}`,
  });
}

/**
 * One check of a second-factor code (a sign-in's second step, a step-up,
 * enrolment's confirmation, turning the factor off). Refused (429, until the
 * window ends) past ten wrong codes for the user from every address (counted
 * by their email, never by a row id, which a new database gives again, on a
 * counter of its own): unlike a password's, a code's counter locks, since
 * only someone who already has the password or a session can reach it, and
 * six digits cannot be left open to guesses spread over many addresses. Also
 * on the sign-ins' per-address counter (an IPv6 /64) and global budget, so
 * guesses at codes and at passwords from one address add up.
 */
export async function takeSecondFactorAttempt(redis: RedisClient, opts: SignInLimits): Promise<SignInAttempt> {
  return takeAttempts(redis, opts, {
    refusing: { key: `${opts.keyPrefix}mfa:${normalisedEmail(opts.email)}`, limit: SECOND_FACTOR_FAILURES },
    slowingKey: null,
  });
}

/** Password reset requests of one email from every address per window (each sends an email: a mailbox must not be flooded). */
const PASSWORD_RESET_EMAIL_REQUESTS = 5;
/** Password reset requests from one client address per window (an IPv6 /64), whatever the email. */
const PASSWORD_RESET_ADDRESS_REQUESTS = 20;

/**
 * One password reset request (POST /auth/password-reset), counted whether or
 * not the email is a user's and never given back, so the limit tells nothing
 * about the email either: refused (429, until the window ends) past five
 * requests for one email from every address, or twenty from one client
 * address (an IPv6 /64), within 15 minutes of the first. The sign-ins' own
 * counters are separate: asking for resets never locks anyone's sign-in.
 */
export async function takePasswordResetAttempt(
  redis: RedisClient,
  opts: Pick<SignInLimits, 'keyPrefix' | 'email' | 'clientAddress'>,
): Promise<{ kind: 'allowed' } | { kind: 'refused'; retryAfterSeconds: number }> {
  const counters = [
    { key: `${opts.keyPrefix}reset-email:${normalisedEmail(opts.email)}`, limit: PASSWORD_RESET_EMAIL_REQUESTS },
    { key: `${opts.keyPrefix}reset-ip:${clientAddressGroup(opts.clientAddress)}`, limit: PASSWORD_RESET_ADDRESS_REQUESTS },
  ];
  for (const counter of counters) {
    const attempt = await takeAttempt(redis, { ...counter, windowSeconds: SIGN_IN_WINDOW_SECONDS });
    if (!attempt.allowed) return { kind: 'refused', retryAfterSeconds: attempt.retryAfterSeconds };
  }
  return { kind: 'allowed' };
}

function normalisedEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function takeAttempts(
  redis: RedisClient,
  opts: Omit<SignInLimits, 'email'>,
  subject: { refusing: { key: string; limit: number }; slowingKey: string | null },
): Promise<SignInAttempt> {
  const refusing = [subject.refusing, { key: `${opts.keyPrefix}login-ip:${clientAddressGroup(opts.clientAddress)}`, limit: opts.addressLimit }];
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
  const slowing = subject.slowingKey === null ? [globalKey] : [globalKey, subject.slowingKey];
  const [globalCount, emailCount] = await Promise.all(
    slowing.map(async (key) => (await takeAttempt(redis, { key, limit: Number.MAX_SAFE_INTEGER, windowSeconds: SIGN_IN_WINDOW_SECONDS })).count),
  );
  taken.push(...slowing);
  // Counts include this attempt: the failures before it are one fewer.
  const byEmail = emailCount === undefined ? 0 : emailDelayMs(emailCount - 1);
  const beyondGlobal = globalCount! - opts.globalLimit;
  const byGlobal = beyondGlobal > 0 ? Math.min(SIGN_IN_MAX_DELAY_MS, beyondGlobal * SIGN_IN_DELAY_STEP_MS) : 0;
  const delayMs = Math.max(byEmail, byGlobal);
  return { kind: 'allowed', delayMs, slowedBy: delayMs === 0 ? null : byEmail >= byGlobal ? 'email' : 'global', succeeded: giveBack };
}

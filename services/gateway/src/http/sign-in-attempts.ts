import { setTimeout } from 'node:timers/promises';
import type { Request } from 'express';
import { AppError } from '@cowrie/core';
import { takeSecondFactorAttempt, takeSignInAttempt, type SignInAttempt } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';

/**
 * The sign-in limits of the routes that check a password or a second-factor
 * code (@cowrie/api-limits: per client address, an IPv6 one by its /64;
 * per email from one address for a password, per user for a code; slowed per
 * email and past the global budget). Each attempt is taken before the check;
 * a refusal is 429 with Retry-After; the returned function gives the attempt
 * back when the password or code was right.
 */
export function signInAttempts(deps: Pick<GatewayDeps, 'redis' | 'config'>) {
  const limits = (req: Request) => ({
    keyPrefix: deps.config.REDIS_KEY_PREFIX,
    clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    addressLimit: deps.config.AUTH_LOGIN_IP_FAILURE_LIMIT,
    globalLimit: deps.config.AUTH_LOGIN_GLOBAL_FAILURE_LIMIT,
  });
  const settle = async (req: Request, attempt: SignInAttempt, refusal: string) => {
    if (attempt.kind === 'refused') {
      throw new AppError('rate_limited', refusal, {
        details: { retry_after_seconds: attempt.retryAfterSeconds },
        headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
      });
    }
    if (attempt.delayMs > 0) {
      req.log.warn({ delayMs: attempt.delayMs, reason: attempt.slowedBy }, 'sign-in slowed: failures past the budget');
      // A timer, not a busy wait: the event loop serves everyone else meanwhile.
      await setTimeout(attempt.delayMs);
    }
    // A right password or code: the places are given back. A refund that fails leaves an attempt counted, which is all it costs.
    return () => attempt.succeeded().catch((err: Error) => req.log.warn({ err: { message: err.message } }, 'sign-in limit refund failed'));
  };
  return {
    /**
     * One password check against `email`'s sign-in limits: a sign-in, the
     * current password of a password change, or a password step-up, which
     * share the email's counters, so a stolen session cannot guess the
     * password faster than a stranger could.
     */
    password: async (req: Request, email: string, refusal: string) => settle(req, await takeSignInAttempt(deps.redis, { ...limits(req), email }), refusal),
    /** One second-factor code check against the limits of the user with this email (takeSecondFactorAttempt). */
    code: async (req: Request, email: string, refusal: string) => settle(req, await takeSecondFactorAttempt(deps.redis, { ...limits(req), email }), refusal),
  };
}

import { z } from 'zod';
import { PASSWORD_RESET_TTL_MINUTES } from '@cowrie/accounts';
import type { AnyRouteSpec } from '../../http/route-registry';
import {
  ZChangePasswordBody,
  ZCodeRequest,
  ZLoginMfaRequest,
  ZLoginRequest,
  ZMfaChallenge,
  ZPasswordResetConfirmBody,
  ZPasswordResetRequest,
  ZPasswordResetRequested,
  ZPasswordSet,
  ZRecoveryCodes,
  ZSecondFactorStatus,
  ZSession,
  ZSignedOut,
  ZStepUpRequest,
  ZSteppedUp,
  ZTotpEnrolment,
} from './schemas';

const tag = 'Dashboard';
/** A route a signed-in user reaches before replacing a one-time password and before enrolling a second factor. */
const anyUserAlways = { kind: 'session', role: 'any_user', beforePasswordChange: true, beforeMfaEnrolment: true } as const;
/** A route of the second factor's enrolment: open before it is on. */
const enrolment = { kind: 'session', role: 'any_user', beforeMfaEnrolment: true } as const;
const anyUser = { kind: 'session', role: 'any_user' } as const;
const limitedCodes = {
  429: {
    description:
      'rate_limited, with Retry-After: too many wrong codes for this user from any address (10 within 15 minutes of the first), ' +
      'or failed sign-ins and codes from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT; an IPv6 address counts by its /64)',
  },
};

/**
 * Sign-in (a password, then a code of the second factor when the user has
 * one), sign-out and the password change; forgotten passwords and emailed
 * invitations (a link by email, then a new password with its token); the
 * signed-in user's second factor (TOTP, RFC 6238) and the step-up that
 * guarded changes need. Keyed by their operationId, in the order they are
 * mounted.
 */
export const authDashboardSpecs = {
  login: {
    method: 'post',
    path: '/auth/login',
    operationId: 'login',
    summary: 'Sign in to the dashboard',
    description:
      'Without a second factor the answer is a session. With one, it is a challenge (`mfa_required: true`) and no token: ' +
      'send it with a code to POST /auth/login/mfa within 5 minutes. A sign-in counts as a step-up at its time.',
    tag,
    auth: { kind: 'none' },
    responseHoldsSecret: true,
    request: { body: ZLoginRequest },
    responses: {
      200: { description: 'A session token, or a challenge for the second step', data: z.union([ZSession, ZMfaChallenge]) },
      401: {
        description:
          'unauthorized: email or password is incorrect (an unknown email, a wrong password and a disabled user get the same answer, after the same work); ' +
          'or the right one-time password of an invitation that expired (72 hours after it, or when its inviter was removed), which says so',
      },
      429: {
        description:
          'rate_limited, with Retry-After: too many failed sign-ins from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT; an IPv6 address counts by its /64), or for this email from this address (10), within 15 minutes of the first failure. ' +
          "An email's failures from every address only slow its attempts (past 10, each waits twice as long as the last, up to 5 s), as do failures past AUTH_LOGIN_GLOBAL_FAILURE_LIMIT across all sign-ins: neither refuses, so nobody can lock a user out.",
      },
    },
  },
  loginMfa: {
    method: 'post',
    path: '/auth/login/mfa',
    operationId: 'loginMfa',
    summary: 'Sign in, second step: a code of the second factor',
    description:
      'The challenge of POST /auth/login and a code: the current 6-digit code (the step before or after is accepted too, for clock drift; each code once), ' +
      'or a recovery code (each once). A wrong code leaves the challenge usable until it expires; the right one spends it.',
    tag,
    auth: { kind: 'none' },
    responseHoldsSecret: true,
    request: { body: ZLoginMfaRequest },
    responses: {
      200: { description: 'A session token', data: ZSession },
      401: { description: 'unauthorized: the code is incorrect or already used, or the challenge expired, was used, or its user signed out since' },
      429: {
        description:
          "rate_limited, with Retry-After: too many wrong codes for this user from any address (10 within 15 minutes of the first; unlike a password's per-email failures, these refuse), " +
          'or failed sign-ins and codes from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT; an IPv6 address counts by its /64)',
      },
    },
  },
  changePassword: {
    method: 'post',
    path: '/auth/password',
    operationId: 'changePassword',
    summary: "Change the signed-in user's password",
    description: 'The current password (a one-time one included) must match. Every session of the user ends, this one too: the answer is a new session.',
    tag,
    auth: anyUserAlways,
    responseHoldsSecret: true,
    request: { body: ZChangePasswordBody },
    responses: {
      200: { description: 'A new session token', data: ZSession },
      400: {
        description:
          'invalid_request: current_password is incorrect, or new_password is shorter than 12 characters, a common or breached password, or the same',
      },
      429: {
        description:
          "rate_limited, with Retry-After: too many failed password attempts for the user's email from this client address, or from this address (the sign-in counters: a wrong current password counts as a failed sign-in)",
      },
    },
  },
  logout: {
    method: 'post',
    path: '/auth/logout',
    operationId: 'logout',
    summary: 'Sign out: end every session of the signed-in user',
    description: 'Every token issued to this user before now stops working at once, on every replica.',
    tag,
    auth: anyUserAlways,
    responses: { 200: { description: 'Signed out', data: ZSignedOut } },
  },
  requestPasswordReset: {
    method: 'post',
    path: '/auth/password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password reset link by email',
    description:
      `Always the same 202 answer, after the same work, whether or not a user signs in with the email: the lookup and the email happen after answering. ` +
      `A user who may sign in (not removed, not an invitation that died) gets a link to the dashboard's reset page by email (live mode's email provider; the sandbox outbox in development), ` +
      `single use, valid ${PASSWORD_RESET_TTL_MINUTES} minutes; asking again ends the earlier link.`,
    tag,
    auth: { kind: 'none' },
    request: { body: ZPasswordResetRequest },
    responses: {
      202: { description: 'Asked (the same answer for every email)', data: ZPasswordResetRequested },
      429: {
        description:
          'rate_limited, with Retry-After: more than 5 requests for this email (from every address), or 20 from this client address (an IPv6 address counts by its /64), within 15 minutes of the first',
      },
    },
  },
  confirmPasswordReset: {
    method: 'post',
    path: '/auth/password-reset/confirm',
    operationId: 'confirmPasswordReset',
    summary: 'Choose a new password with an emailed link',
    description:
      'The token of a password reset link or of an emailed invitation, and the new password (12 characters or more, not a common or breached one). The link is spent, and every session of the user ends: the answer is no session; sign in with the new password (and a code, with a second factor).',
    tag,
    auth: { kind: 'none' },
    request: { body: ZPasswordResetConfirmBody },
    responses: {
      200: { description: 'The password is set', data: ZPasswordSet },
      400: {
        description:
          'invalid_request: the link is unknown, already used, expired, replaced by a newer one, or its user changed since (a new password, a sign-out, a removal; field token); or the password is too short or too common (field password)',
      },
    },
  },
  getSecondFactor: {
    method: 'get',
    path: '/auth/mfa',
    operationId: 'getSecondFactor',
    summary: "The signed-in user's second factor",
    tag,
    auth: enrolment,
    responses: { 200: { description: 'Whether it is on, and the recovery codes left', data: ZSecondFactorStatus } },
  },
  startTotpEnrolment: {
    method: 'post',
    path: '/auth/mfa/totp',
    operationId: 'startTotpEnrolment',
    summary: 'Start two-step sign-in: a new TOTP secret',
    description:
      "A new secret for an authenticator app (issuer Cowrie, the account the user's email), shown this once and stored sealed. " +
      'It is not in force until POST /auth/mfa/totp/confirm; starting again replaces it. Refused while a second factor is on.',
    tag,
    auth: enrolment,
    responseHoldsSecret: true,
    responses: {
      200: { description: 'The secret and its otpauth URL', data: ZTotpEnrolment },
      400: { description: 'invalid_request: a second factor is already on (details.reason mfa_already_enabled)' },
    },
  },
  confirmTotpEnrolment: {
    method: 'post',
    path: '/auth/mfa/totp/confirm',
    operationId: 'confirmTotpEnrolment',
    summary: 'Turn two-step sign-in on with a first code',
    description:
      'A code of the new secret puts it in force: from now on sign-in asks for a code. The answer holds ten recovery codes, shown this once. ' +
      'The session counts as stepped up.',
    tag,
    auth: enrolment,
    responseHoldsSecret: true,
    request: { body: ZCodeRequest },
    responses: {
      200: { description: 'The recovery codes', data: ZRecoveryCodes },
      400: { description: 'invalid_request: the code is incorrect (details.field code), no enrolment was started, or a second factor is already on' },
      ...limitedCodes,
    },
  },
  disableTotp: {
    method: 'post',
    path: '/auth/mfa/totp/disable',
    operationId: 'disableTotp',
    summary: 'Turn two-step sign-in off',
    description: 'Needs a fresh code of the factor (or a recovery code). The secret and the recovery codes are deleted.',
    tag,
    auth: anyUser,
    request: { body: ZCodeRequest },
    responses: {
      200: { description: 'The second factor, now off', data: ZSecondFactorStatus },
      400: { description: 'invalid_request: the code is incorrect or already used (details.field code), or no second factor is on' },
      ...limitedCodes,
    },
  },
  stepUp: {
    method: 'post',
    path: '/auth/step-up',
    operationId: 'stepUp',
    summary: 'Confirm it is you before a guarded change',
    description:
      'A user with a second factor sends a code of it (or a recovery code); a user without one, their password. ' +
      'For STEP_UP_SECONDS (default 300) this session may then make the guarded changes (payouts, API keys, invitations, webhook URLs and secrets) ' +
      'that answer 403 step_up_required otherwise. A sign-in counts as a step-up too.',
    tag,
    auth: anyUser,
    request: { body: ZStepUpRequest },
    responses: {
      200: { description: 'Stepped up', data: ZSteppedUp },
      400: { description: 'invalid_request: the code or password is incorrect, or the other one was expected (details.field)' },
      429: {
        description:
          'rate_limited, with Retry-After: too many wrong codes for this user, or wrong passwords for their email from this address (as sign-ins), ' +
          'or failed sign-ins and codes from this client address (an IPv6 address counts by its /64)',
      },
    },
  },
} satisfies Record<string, AnyRouteSpec>;

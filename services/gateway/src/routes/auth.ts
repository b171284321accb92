import { z } from 'zod';
import { AppError } from '@cowrie/core';
import {
  LOGIN_CHALLENGE_TTL_SECONDS,
  ONE_TIME_PASSWORD_EXPIRED_MESSAGE,
  ZChangePasswordRequest,
  changeOwnPassword,
  checkDashboardCredentials,
  checkLoginChallengeCode,
  dashboardUserEmail,
  endUserSessions,
  hasSecondFactor,
  issueLoginChallenge,
  issueSessionToken,
  mfaEnrolmentRequired,
  oneTimePasswordExpired,
  readLoginChallenge,
  recoveryCodesRemaining,
  recordSignInFailure,
  spendLoginChallenge,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { auditAfter, recordAudit, recordAuditAfter, requestOrigin } from '../http/audit';
import { signInAttempts } from '../http/sign-in-attempts';
import { named } from '../openapi/schemas';

const ZLoginRequest = named(
  'LoginRequest',
  z.object({
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(200),
  }),
);

const ZSession = named(
  'Session',
  z.object({
    token: z.string().meta({ description: 'Send as Authorization: Bearer <token> to the dashboard routes' }),
    expires_in: z.number().int().meta({ description: 'Seconds' }),
    mfa_required: z.literal(false).meta({ description: 'A session: the sign-in is complete' }),
    password_change_required: z.boolean().meta({
      description: 'Signed in with a one-time password: every dashboard route but POST /auth/password and /auth/logout answers 403 until it is changed',
    }),
    mfa_enrolment_required: z.boolean().meta({
      description:
        'An owner or admin without a second factor under REQUIRE_MFA_FOR_ADMINS: every dashboard route but enrolment (POST /auth/mfa/totp, /auth/mfa/totp/confirm), GET /auth/mfa, POST /auth/password and /auth/logout answers 403 until it is on',
    }),
  }),
);

const ZMfaChallenge = named(
  'MfaChallenge',
  z.object({
    mfa_required: z
      .literal(true)
      .meta({ description: 'The password was right; the user has a second factor: send a code with this challenge to POST /auth/login/mfa' }),
    challenge: z.string().meta({ description: 'Single use, for this sign-in only' }),
    expires_in: z
      .number()
      .int()
      .meta({ description: `Seconds the challenge stays valid (${LOGIN_CHALLENGE_TTL_SECONDS})` }),
  }),
);

const ZLoginMfaRequest = named(
  'LoginMfaRequest',
  z.object({
    challenge: z.string().min(1).max(2000),
    code: z.string().trim().min(1).max(64).meta({ description: 'The 6-digit code of the authenticator app, or one of the recovery codes (each works once)' }),
  }),
);

const ZSignedOut = named('SignedOut', z.object({ signed_out: z.literal(true) }));

export function registerAuthRoutes(app: RouteMount, deps: GatewayDeps) {
  const attempts = signInAttempts(deps);

  const newSession = async (user: {
    id: number;
    workspaceId: number;
    sessionVersion: number;
    role: string;
    passwordChangeRequired: boolean;
    totpConfirmedAt: Date | null;
  }) => ({
    token: await issueSessionToken(
      { userId: user.id, workspaceId: user.workspaceId, version: user.sessionVersion },
      deps.config.JWT_SECRET,
      deps.config.JWT_TTL_SECONDS,
    ),
    expires_in: deps.config.JWT_TTL_SECONDS,
    mfa_required: false as const,
    password_change_required: user.passwordChangeRequired,
    mfa_enrolment_required: mfaEnrolmentRequired(user, deps.config.REQUIRE_MFA_FOR_ADMINS),
  });

  app.route(
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'login',
      summary: 'Sign in to the dashboard',
      description:
        'Without a second factor the answer is a session. With one, it is a challenge (`mfa_required: true`) and no token: ' +
        'send it with a code to POST /auth/login/mfa within 5 minutes. A sign-in counts as a step-up at its time.',
      tag: 'Dashboard',
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
    async ({ body: { email, password } }, req, res) => {
      const rightPassword = await attempts.password(req, email, 'Too many sign-in attempts; try again later');
      const user = await checkDashboardCredentials(deps.db, email, password);
      if (!user) {
        await auditAfter(req, 'user.sign_in_failed', () => recordSignInFailure(deps.db, requestOrigin(req), email));
        throw new AppError('unauthorized', 'Email or password is incorrect');
      }
      await rightPassword();
      if (oneTimePasswordExpired(user)) throw new AppError('unauthorized', ONE_TIME_PASSWORD_EXPIRED_MESSAGE);
      if (hasSecondFactor(user)) {
        // Signed in (and recorded) at the second step.
        const challenge = await issueLoginChallenge(user, deps.config.JWT_SECRET);
        sendData(req, res, 200, { mfa_required: true, challenge, expires_in: LOGIN_CHALLENGE_TTL_SECONDS });
        return;
      }
      await recordAuditAfter(
        deps.db,
        req,
        { action: 'user.signed_in', objectId: user.id, details: {} },
        { workspaceId: user.workspaceId, actor: { type: 'user', userId: user.id, email: user.email } },
      );
      sendData(req, res, 200, await newSession(user));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/login/mfa',
      operationId: 'loginMfa',
      summary: 'Sign in, second step: a code of the second factor',
      description:
        'The challenge of POST /auth/login and a code: the current 6-digit code (the step before or after is accepted too, for clock drift; each code once), ' +
        'or a recovery code (each once). A wrong code leaves the challenge usable until it expires; the right one spends it.',
      tag: 'Dashboard',
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
    async ({ body }, req, res) => {
      const challenge = await readLoginChallenge(body.challenge, deps.config.JWT_SECRET);
      if (!challenge) throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      const email = await dashboardUserEmail(deps.db, challenge.userId);
      if (!email) throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      const rightCode = await attempts.code(req, email, 'Too many wrong codes; try again later');
      const outcome = await checkLoginChallengeCode(deps.db, { challenge, code: body.code, encryptionKey: deps.config.ENCRYPTION_KEY });
      // A user signed out, removed or whose factor was reset since the password step starts again.
      if (outcome.kind === 'ended' || (outcome.kind === 'refused' && outcome.reason === 'no_factor')) {
        throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      }
      if (outcome.kind === 'refused') {
        await auditAfter(req, 'user.sign_in_failed', () => recordSignInFailure(deps.db, requestOrigin(req), email));
        throw new AppError('unauthorized', outcome.reason === 'replayed' ? 'This code was already used; wait for the next one' : 'The code is incorrect');
      }
      await rightCode();
      // One challenge, one session: of two requests with right codes, the second is refused.
      if (!(await spendLoginChallenge(deps.redis, deps.config.REDIS_KEY_PREFIX, challenge))) {
        throw new AppError('unauthorized', 'This sign-in was already completed; sign in again');
      }
      const who = { workspaceId: outcome.user.workspaceId, actor: { type: 'user' as const, userId: outcome.user.id, email } };
      if (outcome.via === 'recovery_code') {
        const remaining = await recoveryCodesRemaining(deps.db, outcome.user.id);
        await recordAuditAfter(deps.db, req, { action: 'user.recovery_code_used', objectId: outcome.user.id, details: { remaining } }, who);
      }
      await recordAuditAfter(deps.db, req, { action: 'user.signed_in', objectId: outcome.user.id, details: {} }, who);
      sendData(req, res, 200, await newSession(outcome.user));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/password',
      operationId: 'changePassword',
      summary: "Change the signed-in user's password",
      description: 'The current password (a one-time one included) must match. Every session of the user ends, this one too: the answer is a new session.',
      tag: 'Dashboard',
      auth: { kind: 'session', role: 'any_user', beforePasswordChange: true, beforeMfaEnrolment: true },
      responseHoldsSecret: true,
      request: { body: named('ChangePasswordRequest', ZChangePasswordRequest) },
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
    async ({ body }, req, res) => {
      const { userId } = sessionOf(req);
      const email = await dashboardUserEmail(deps.db, userId);
      if (!email) throw new AppError('unauthorized', 'This session has ended; sign in again');
      const rightPassword = await attempts.password(req, email, 'Too many password attempts; try again later');
      let changed;
      try {
        changed = await changeOwnPassword(deps.db, { userId, currentPassword: body.current_password, newPassword: body.new_password });
      } catch (err) {
        // Only a wrong current password counts as a failed attempt.
        if (!(err instanceof AppError && err.details?.field === 'current_password')) await rightPassword();
        throw err;
      }
      await rightPassword();
      // After the change, not in its transaction: the new password is hashed (scrypt) inside it.
      await recordAuditAfter(deps.db, req, { action: 'user.password_changed', objectId: userId, details: {} });
      sendData(req, res, 200, await newSession(changed));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'logout',
      summary: 'Sign out: end every session of the signed-in user',
      description: 'Every token issued to this user before now stops working at once, on every replica.',
      tag: 'Dashboard',
      auth: { kind: 'session', role: 'any_user', beforePasswordChange: true, beforeMfaEnrolment: true },
      responses: { 200: { description: 'Signed out', data: ZSignedOut } },
    },
    async (_input, req, res) => {
      const { userId } = sessionOf(req);
      await deps.db.$transaction(async (tx) => {
        await endUserSessions(tx, userId);
        await recordAudit(tx, req, { action: 'user.signed_out', objectId: userId, details: {} });
      });
      sendData(req, res, 200, { signed_out: true });
    },
  );
}

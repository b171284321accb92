import { AppError } from '@cowrie/core';
import {
  LOGIN_CHALLENGE_TTL_SECONDS,
  ONE_TIME_PASSWORD_EXPIRED_MESSAGE,
  changeOwnPassword,
  checkDashboardCredentials,
  checkLoginChallengeCode,
  checkOwnPassword,
  checkSecondFactor,
  confirmTotpEnrolment,
  dashboardUserEmail,
  endUserSessions,
  hasSecondFactor,
  issueLoginChallenge,
  issuePasswordReset,
  issueSessionToken,
  mfaEnrolmentRequired,
  oneTimePasswordExpired,
  passwordLinkEmail,
  readLoginChallenge,
  recordAuditEvent,
  recordSignInFailure,
  recordStepUp,
  recoveryCodesRemaining,
  secondFactorRefusal,
  secondFactorStatus,
  spendLoginChallenge,
  releaseLoginChallenge,
  startTotpEnrolment,
  turnOffSecondFactor,
  usePasswordLink,
} from '@cowrie/accounts';
import { takePasswordResetAttempt } from '@cowrie/api-limits';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData, sessionOf } from '../../http/respond';
import { auditAfter, recordAudit, recordAuditAfter, requestOrigin } from '../../http/audit';
import { signInAttempts } from '../../http/sign-in-attempts';
import type { authDashboardSpecs } from './specs';

/**
 * One handler per sign-in route (authDashboardSpecs). The passwords, codes
 * and links are checked in @cowrie/accounts (the codes in second-factor.ts);
 * every password or code check here is limited like a sign-in (signInAttempts).
 */
export function createAuthDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof authDashboardSpecs> {
  const attempts = signInAttempts(deps);
  const encryptionKey = deps.config.ENCRYPTION_KEY;
  const tooManyCodes = 'Too many wrong codes; try again later';

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
  /** The email of the session's user, whose code attempts are counted (by email, as sign-ins are). */
  const emailOf = async (userId: number) => {
    const email = await dashboardUserEmail(deps.db, userId);
    if (!email) throw new AppError('unauthorized', 'This session has ended; sign in again');
    return email;
  };
  const status = (userId: number) => secondFactorStatus(deps.db, { userId, requireMfaForAdmins: deps.config.REQUIRE_MFA_FOR_ADMINS });

  return {
    async login({ body: { email, password } }, req, res) {
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

    async loginMfa({ body }, req, res) {
      const challenge = await readLoginChallenge(body.challenge, deps.config.JWT_SECRET);
      if (!challenge) throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      const email = await dashboardUserEmail(deps.db, challenge.userId);
      if (!email) throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      const rightCode = await attempts.code(req, email, tooManyCodes);
      // One challenge, one session, taken before its code is checked: a challenge
      // already spent (or being spent by a request racing this one) is refused
      // without using the code it carries (a recovery code, a time step). A
      // refused code gives the challenge back for another try.
      if (!(await spendLoginChallenge(deps.redis, deps.config.REDIS_KEY_PREFIX, challenge))) {
        throw new AppError('unauthorized', 'This sign-in was already completed; sign in again');
      }
      let outcome: Awaited<ReturnType<typeof checkLoginChallengeCode>>;
      try {
        outcome = await checkLoginChallengeCode(deps.db, { challenge, code: body.code, encryptionKey });
      } catch (err) {
        await releaseLoginChallenge(deps.redis, deps.config.REDIS_KEY_PREFIX, challenge);
        throw err;
      }
      // A user signed out, removed or whose factor was reset since the password step starts again.
      if (outcome.kind === 'ended' || (outcome.kind === 'refused' && outcome.reason === 'no_factor')) {
        throw new AppError('unauthorized', 'This sign-in has expired; sign in again with your password');
      }
      if (outcome.kind === 'refused') {
        await releaseLoginChallenge(deps.redis, deps.config.REDIS_KEY_PREFIX, challenge);
        await auditAfter(req, 'user.sign_in_failed', () => recordSignInFailure(deps.db, requestOrigin(req), email));
        throw new AppError('unauthorized', outcome.reason === 'replayed' ? 'This code was already used; wait for the next one' : 'The code is incorrect');
      }
      await rightCode();
      const who = { workspaceId: outcome.user.workspaceId, actor: { type: 'user' as const, userId: outcome.user.id, email } };
      if (outcome.via === 'recovery_code') {
        const remaining = await recoveryCodesRemaining(deps.db, outcome.user.id);
        await recordAuditAfter(deps.db, req, { action: 'user.recovery_code_used', objectId: outcome.user.id, details: { remaining } }, who);
      }
      await recordAuditAfter(deps.db, req, { action: 'user.signed_in', objectId: outcome.user.id, details: {} }, who);
      sendData(req, res, 200, await newSession(outcome.user));
    },

    async changePassword({ body }, req, res) {
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

    async logout(_input, req, res) {
      const { userId } = sessionOf(req);
      await deps.db.$transaction(async (tx) => {
        await endUserSessions(tx, userId);
        await recordAudit(tx, req, { action: 'user.signed_out', objectId: userId, details: {} });
      });
      sendData(req, res, 200, { signed_out: true });
    },

    async requestPasswordReset({ body }, req, res) {
      const limit = await takePasswordResetAttempt(deps.redis, {
        keyPrefix: deps.config.REDIS_KEY_PREFIX,
        email: body.email,
        clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      });
      if (limit.kind === 'refused') {
        throw new AppError('rate_limited', 'Too many password reset requests; try again later', {
          details: { retry_after_seconds: limit.retryAfterSeconds },
          headers: { 'Retry-After': String(limit.retryAfterSeconds) },
        });
      }
      sendData(req, res, 202, { requested: true });
      const origin = requestOrigin(req);
      // After the answer: whether the email is a user's, and the email's round trip, never show in its time.
      deps.background.run('password reset email', async () => {
        const dashboardUrl = deps.config.DASHBOARD_URL;
        if (!dashboardUrl) {
          deps.logger.warn({ requestId: req.id }, 'password reset asked but DASHBOARD_URL is not set: no link can be sent');
          return;
        }
        const issued = await issuePasswordReset(deps.db, { email: body.email });
        if (!issued) return;
        let sent = true;
        try {
          await deps.email.sendEmail({ to: issued.user.email, kind: 'password_reset', ...passwordLinkEmail(dashboardUrl, 'reset', issued.token) });
        } catch (err) {
          sent = false;
          deps.logger.error({ err: { message: (err as Error).message }, requestId: req.id, userId: issued.user.userId }, 'password reset email not sent');
        }
        await auditAfter(req, 'user.password_reset_requested', () =>
          recordAuditEvent(
            deps.db,
            { ...origin, workspaceId: issued.user.workspaceId, actor: { type: 'anonymous' } },
            { action: 'user.password_reset_requested', objectId: issued.user.userId, details: { sent } },
          ),
        );
      });
    },

    async confirmPasswordReset({ body }, req, res) {
      const used = await usePasswordLink(deps.db, { token: body.token, password: body.password });
      await recordAuditAfter(
        deps.db,
        req,
        { action: 'user.password_reset', objectId: used.user.userId, details: { via: used.purpose } },
        { workspaceId: used.user.workspaceId, actor: { type: 'user', userId: used.user.userId, email: used.user.email } },
      );
      sendData(req, res, 200, { email: used.user.email, password_set: true });
    },

    async getSecondFactor(_input, req, res) {
      sendData(req, res, 200, await status(sessionOf(req).userId));
    },

    async startTotpEnrolment(_input, req, res) {
      sendData(req, res, 200, await startTotpEnrolment(deps.db, { userId: sessionOf(req).userId, encryptionKey }));
    },

    async confirmTotpEnrolment({ body }, req, res) {
      const session = sessionOf(req);
      const rightCode = await attempts.code(req, await emailOf(session.userId), tooManyCodes);
      const confirmed = await confirmTotpEnrolment(deps.db, { userId: session.userId, code: body.code, encryptionKey });
      if (confirmed.kind === 'wrong_code') throw secondFactorRefusal({ kind: 'refused', reason: 'wrong_code' });
      await rightCode();
      if (session.sessionId) await recordStepUp(deps.db, session);
      await recordAuditAfter(deps.db, req, { action: 'user.mfa_enrolled', objectId: session.userId, details: { method: 'totp' } });
      sendData(req, res, 200, { recovery_codes: confirmed.recoveryCodes });
    },

    async disableTotp({ body }, req, res) {
      const { userId } = sessionOf(req);
      const rightCode = await attempts.code(req, await emailOf(userId), tooManyCodes);
      const check = await turnOffSecondFactor(deps.db, { userId, code: body.code, encryptionKey });
      if (check.kind === 'refused') throw secondFactorRefusal(check);
      await rightCode();
      await recordAuditAfter(deps.db, req, { action: 'user.mfa_disabled', objectId: userId, details: { method: 'totp' } });
      sendData(req, res, 200, await status(userId));
    },

    async stepUp({ body }, req, res) {
      const session = sessionOf(req);
      if (session.mfaEnabled) {
        if (body.code === undefined) {
          throw new AppError('invalid_request', 'code: is required; a user with two-step sign-in steps up with a code', { details: { field: 'code' } });
        }
        const rightCode = await attempts.code(req, await emailOf(session.userId), tooManyCodes);
        const check = await checkSecondFactor(deps.db, { userId: session.userId, code: body.code, encryptionKey });
        if (check.kind === 'refused') throw secondFactorRefusal(check);
        await rightCode();
        if (check.via === 'recovery_code') {
          const remaining = await recoveryCodesRemaining(deps.db, session.userId);
          await recordAuditAfter(deps.db, req, { action: 'user.recovery_code_used', objectId: session.userId, details: { remaining } });
        }
      } else {
        if (body.password === undefined) {
          throw new AppError('invalid_request', 'password: is required; a user without two-step sign-in steps up with their password', {
            details: { field: 'password' },
          });
        }
        const rightPassword = await attempts.password(req, await emailOf(session.userId), 'Too many password attempts; try again later');
        if (!(await checkOwnPassword(deps.db, session.userId, body.password))) {
          throw new AppError('invalid_request', 'password: is incorrect', { details: { field: 'password' } });
        }
        await rightPassword();
      }
      const now = new Date();
      await recordStepUp(deps.db, session, now);
      sendData(req, res, 200, { stepped_up_until: new Date(now.getTime() + deps.config.STEP_UP_SECONDS * 1000).toISOString() });
    },
  };
}

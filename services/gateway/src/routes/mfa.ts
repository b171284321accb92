import { z } from 'zod';
import { AppError } from '@cowrie/core';
import {
  checkOwnPassword,
  checkSecondFactor,
  confirmTotpEnrolment,
  dashboardUserEmail,
  recordStepUp,
  recoveryCodesRemaining,
  secondFactorRefusal,
  secondFactorStatus,
  startTotpEnrolment,
  turnOffSecondFactor,
  type SecondFactorStatus,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { signInAttempts } from '../http/sign-in-attempts';
import { recordAuditAfter } from '../http/audit';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';

const ZCode = z.string().trim().min(1).max(64);
const ZCodeRequest = named('MfaCodeRequest', z.object({ code: ZCode.meta({ description: 'A 6-digit code of the authenticator app' }) }));

const ZSecondFactorStatus = named(
  'SecondFactorStatus',
  responseOf<SecondFactorStatus>()(
    z.object({
      totp_enabled: z.boolean().meta({ description: 'Sign-in asks for a code of an authenticator app' }),
      recovery_codes_remaining: z.number().int().meta({ description: 'Unused recovery codes (each works once in place of a code)' }),
      enrolment_required: z
        .boolean()
        .meta({ description: 'An owner or admin under REQUIRE_MFA_FOR_ADMINS without a second factor: nothing else answers until it is on' }),
    }),
  ),
);

const ZTotpEnrolment = named(
  'TotpEnrolment',
  z.object({
    secret: z.string().meta({ description: 'The TOTP secret (base32), shown this once: type it into an authenticator app, or scan otpauth_url as a QR code' }),
    otpauth_url: z
      .string()
      .meta({ description: '`otpauth://totp/Cowrie:<email>?secret=…&issuer=Cowrie`: draw it as a QR code on the device (never send it to a QR service)' }),
  }),
);

const ZRecoveryCodes = named(
  'RecoveryCodes',
  z.object({
    recovery_codes: z.array(z.string()).meta({
      description: 'Ten single-use codes (`abcd-efgh-ijkl-mnop`), shown this once (only their hashes are kept): each signs in once in place of a code',
    }),
  }),
);

const ZStepUpRequest = named(
  'StepUpRequest',
  z
    .object({
      code: ZCode.optional().meta({ description: 'A user with a second factor: a 6-digit code of it, or a recovery code' }),
      password: z.string().min(1).max(200).optional().meta({ description: 'A user without a second factor: their password' }),
    })
    .meta({ description: 'One of code (a user with a second factor) and password (a user without one)' }),
);

const ZSteppedUp = named(
  'SteppedUp',
  z.object({ stepped_up_until: ZTimestamp.meta({ description: 'Guarded changes answer this session until then (STEP_UP_SECONDS from now)' }) }),
);

/**
 * Two-step sign-in (TOTP, RFC 6238) for the signed-in user, and the step-up
 * that guarded changes need. The codes are checked in @cowrie/accounts
 * (second-factor.ts); every check here is limited like a password
 * (signInAttempts).
 */
export function registerMfaRoutes(app: RouteMount, deps: GatewayDeps) {
  const tag = 'Dashboard';
  const attempts = signInAttempts(deps);
  const encryptionKey = deps.config.ENCRYPTION_KEY;
  const tooManyCodes = 'Too many wrong codes; try again later';
  const limited = {
    429: {
      description:
        'rate_limited, with Retry-After: too many wrong codes for this user from any address (10 within 15 minutes of the first), ' +
        'or failed sign-ins and codes from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT; an IPv6 address counts by its /64)',
    },
  };
  /** The email of the session's user, whose code attempts are counted (by email, as sign-ins are). */
  const emailOf = async (userId: number) => {
    const email = await dashboardUserEmail(deps.db, userId);
    if (!email) throw new AppError('unauthorized', 'This session has ended; sign in again');
    return email;
  };
  const status = (userId: number) => secondFactorStatus(deps.db, { userId, requireMfaForAdmins: deps.config.REQUIRE_MFA_FOR_ADMINS });

  app.route(
    {
      method: 'get',
      path: '/auth/mfa',
      operationId: 'getSecondFactor',
      summary: "The signed-in user's second factor",
      tag,
      auth: { kind: 'session', role: 'any_user', beforeMfaEnrolment: true },
      responses: { 200: { description: 'Whether it is on, and the recovery codes left', data: ZSecondFactorStatus } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await status(sessionOf(req).userId));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/mfa/totp',
      operationId: 'startTotpEnrolment',
      summary: 'Start two-step sign-in: a new TOTP secret',
      description:
        "A new secret for an authenticator app (issuer Cowrie, the account the user's email), shown this once and stored sealed. " +
        'It is not in force until POST /auth/mfa/totp/confirm; starting again replaces it. Refused while a second factor is on.',
      tag,
      auth: { kind: 'session', role: 'any_user', beforeMfaEnrolment: true },
      responseHoldsSecret: true,
      responses: {
        200: { description: 'The secret and its otpauth URL', data: ZTotpEnrolment },
        400: { description: 'invalid_request: a second factor is already on (details.reason mfa_already_enabled)' },
      },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await startTotpEnrolment(deps.db, { userId: sessionOf(req).userId, encryptionKey }));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/mfa/totp/confirm',
      operationId: 'confirmTotpEnrolment',
      summary: 'Turn two-step sign-in on with a first code',
      description:
        'A code of the new secret puts it in force: from now on sign-in asks for a code. The answer holds ten recovery codes, shown this once. ' +
        'The session counts as stepped up.',
      tag,
      auth: { kind: 'session', role: 'any_user', beforeMfaEnrolment: true },
      responseHoldsSecret: true,
      request: { body: ZCodeRequest },
      responses: {
        200: { description: 'The recovery codes', data: ZRecoveryCodes },
        400: { description: 'invalid_request: the code is incorrect (details.field code), no enrolment was started, or a second factor is already on' },
        ...limited,
      },
    },
    async ({ body }, req, res) => {
      const session = sessionOf(req);
      const rightCode = await attempts.code(req, await emailOf(session.userId), tooManyCodes);
      const confirmed = await confirmTotpEnrolment(deps.db, { userId: session.userId, code: body.code, encryptionKey });
      if (confirmed.kind === 'wrong_code') throw secondFactorRefusal({ kind: 'refused', reason: 'wrong_code' });
      await rightCode();
      if (session.sessionId) await recordStepUp(deps.db, session);
      await recordAuditAfter(deps.db, req, { action: 'user.mfa_enrolled', objectId: session.userId, details: { method: 'totp' } });
      sendData(req, res, 200, { recovery_codes: confirmed.recoveryCodes });
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/mfa/totp/disable',
      operationId: 'disableTotp',
      summary: 'Turn two-step sign-in off',
      description: 'Needs a fresh code of the factor (or a recovery code). The secret and the recovery codes are deleted.',
      tag,
      auth: { kind: 'session', role: 'any_user' },
      request: { body: ZCodeRequest },
      responses: {
        200: { description: 'The second factor, now off', data: ZSecondFactorStatus },
        400: { description: 'invalid_request: the code is incorrect or already used (details.field code), or no second factor is on' },
        ...limited,
      },
    },
    async ({ body }, req, res) => {
      const { userId } = sessionOf(req);
      const rightCode = await attempts.code(req, await emailOf(userId), tooManyCodes);
      const check = await turnOffSecondFactor(deps.db, { userId, code: body.code, encryptionKey });
      if (check.kind === 'refused') throw secondFactorRefusal(check);
      await rightCode();
      await recordAuditAfter(deps.db, req, { action: 'user.mfa_disabled', objectId: userId, details: { method: 'totp' } });
      sendData(req, res, 200, await status(userId));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/step-up',
      operationId: 'stepUp',
      summary: 'Confirm it is you before a guarded change',
      description:
        'A user with a second factor sends a code of it (or a recovery code); a user without one, their password. ' +
        'For STEP_UP_SECONDS (default 300) this session may then make the guarded changes (payouts, API keys, invitations, webhook URLs and secrets) ' +
        'that answer 403 step_up_required otherwise. A sign-in counts as a step-up too.',
      tag,
      auth: { kind: 'session', role: 'any_user' },
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
    async ({ body }, req, res) => {
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
  );
}

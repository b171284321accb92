import { setTimeout } from 'node:timers/promises';
import type { Request } from 'express';
import { z } from 'zod';
import { AppError } from '@cowrie/core';
import {
  ZChangePasswordRequest,
  changeOwnPassword,
  checkDashboardCredentials,
  dashboardUserEmail,
  endUserSessions,
  issueSessionToken,
  recordSignInFailure,
} from '@cowrie/accounts';
import { takeSignInAttempt } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { auditAfter, recordAudit, recordAuditAfter, requestOrigin } from '../http/audit';
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
    password_change_required: z.boolean().meta({
      description: 'Signed in with a one-time password: every dashboard route but POST /auth/password and /auth/logout answers 403 until it is changed',
    }),
  }),
);

const ZSignedOut = named('SignedOut', z.object({ signed_out: z.literal(true) }));

export function registerAuthRoutes(app: RouteMount, deps: GatewayDeps) {
  /**
   * One password check against `email`'s sign-in limits (per email, per client
   * address, slowed past the global budget): a sign-in, or the current
   * password of a password change, which share the email's counter, so a
   * stolen session cannot guess the password faster than a stranger could.
   */
  const passwordAttempt = async (req: Request, email: string, refusal: string) => {
    const attempt = await takeSignInAttempt(deps.redis, {
      keyPrefix: deps.config.REDIS_KEY_PREFIX,
      email,
      clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      addressLimit: deps.config.AUTH_LOGIN_IP_FAILURE_LIMIT,
      globalLimit: deps.config.AUTH_LOGIN_GLOBAL_FAILURE_LIMIT,
    });
    if (attempt.kind === 'refused') throw new AppError('rate_limited', refusal, { details: { retry_after_seconds: attempt.retryAfterSeconds } });
    if (attempt.delayMs > 0) {
      req.log.warn({ delayMs: attempt.delayMs }, 'sign-in slowed: failures past the global budget');
      await setTimeout(attempt.delayMs);
    }
    // A right password: the places are given back. A refund that fails leaves an attempt counted, which is all it costs.
    return () => attempt.succeeded().catch((err: Error) => req.log.warn({ err: { message: err.message } }, 'sign-in limit refund failed'));
  };

  app.route(
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'login',
      summary: 'Sign in to the dashboard',
      tag: 'Dashboard',
      auth: { kind: 'none' },
      request: { body: ZLoginRequest },
      responses: {
        200: { description: 'A session token', data: ZSession },
        401: { description: 'unauthorized: email or password is incorrect' },
        429: {
          description:
            'rate_limited: too many failed sign-in attempts for this email, or from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT), within 15 minutes of the first failure; past AUTH_LOGIN_GLOBAL_FAILURE_LIMIT failures across all sign-ins, attempts are slowed, not refused',
        },
      },
    },
    async ({ body: { email, password } }, req, res) => {
      const rightPassword = await passwordAttempt(req, email, 'Too many sign-in attempts; try again later');
      const user = await checkDashboardCredentials(deps.db, email, password);
      if (!user) {
        await auditAfter(req, 'user.sign_in_failed', () => recordSignInFailure(deps.db, requestOrigin(req), email));
        throw new AppError('unauthorized', 'Email or password is incorrect');
      }
      await rightPassword();
      await recordAuditAfter(
        deps.db,
        req,
        { action: 'user.signed_in', objectId: user.id, details: {} },
        { workspaceId: user.workspaceId, actor: { type: 'user', userId: user.id, email: user.email } },
      );
      sendData(req, res, 200, {
        ...(await newSession({ id: user.id, workspaceId: user.workspaceId, sessionVersion: user.sessionVersion })),
        password_change_required: user.passwordChangeRequired,
      });
    },
  );

  const newSession = async (user: { id: number; workspaceId: number; sessionVersion: number }) => ({
    token: await issueSessionToken(
      { userId: user.id, workspaceId: user.workspaceId, version: user.sessionVersion },
      deps.config.JWT_SECRET,
      deps.config.JWT_TTL_SECONDS,
    ),
    expires_in: deps.config.JWT_TTL_SECONDS,
  });

  app.route(
    {
      method: 'post',
      path: '/auth/password',
      operationId: 'changePassword',
      summary: "Change the signed-in user's password",
      description: 'The current password (a one-time one included) must match. Every session of the user ends, this one too: the answer is a new session.',
      tag: 'Dashboard',
      auth: { kind: 'session', role: 'any_user', beforePasswordChange: true },
      request: { body: named('ChangePasswordRequest', ZChangePasswordRequest) },
      responses: {
        200: { description: 'A new session token', data: ZSession },
        400: { description: 'invalid_request: current_password is incorrect, or new_password is too short or the same' },
        429: {
          description:
            "rate_limited: too many failed password attempts for the user's email (its sign-in counter: a wrong current password counts as a failed sign-in), or from this client address",
        },
      },
    },
    async ({ body }, req, res) => {
      const { userId } = sessionOf(req);
      const email = await dashboardUserEmail(deps.db, userId);
      if (!email) throw new AppError('unauthorized', 'This session has ended; sign in again');
      const rightPassword = await passwordAttempt(req, email, 'Too many password attempts; try again later');
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
      sendData(req, res, 200, { ...(await newSession(changed)), password_change_required: false });
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
      auth: { kind: 'session', role: 'any_user', beforePasswordChange: true },
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

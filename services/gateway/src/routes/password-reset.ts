import { z } from 'zod';
import { AppError, emailField } from '@cowrie/core';
import {
  PASSWORD_RESET_TTL_MINUTES,
  ZUsePasswordLinkRequest,
  issuePasswordReset,
  passwordLinkEmail,
  recordAuditEvent,
  usePasswordLink,
} from '@cowrie/accounts';
import { takePasswordResetAttempt } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData } from '../http/respond';
import { auditAfter, recordAuditAfter, requestOrigin } from '../http/audit';
import { named } from '../openapi/schemas';

const ZPasswordResetRequest = named('PasswordResetRequest', z.object({ email: emailField }));
const ZPasswordResetRequested = named(
  'PasswordResetRequested',
  z.object({
    requested: z.literal(true).meta({
      description: `The same for every email: if a user signs in with it, a link to choose a new password (single use, ${PASSWORD_RESET_TTL_MINUTES} minutes) is on its way`,
    }),
  }),
);
const ZPasswordSet = named(
  'PasswordSet',
  z.object({
    email: z.string().meta({ description: 'The email to sign in with, with the new password' }),
    password_set: z.literal(true),
  }),
);

/** Forgotten passwords and emailed invitations: a link by email, then a new password with its token. */
export function registerPasswordResetRoutes(app: RouteMount, deps: GatewayDeps) {
  app.route(
    {
      method: 'post',
      path: '/auth/password-reset',
      operationId: 'requestPasswordReset',
      summary: 'Ask for a password reset link by email',
      description:
        `Always the same 202 answer, after the same work, whether or not a user signs in with the email: the lookup and the email happen after answering. ` +
        `A user who may sign in (not removed, not an invitation that died) gets a link to the dashboard's reset page by email (live mode's email provider; the sandbox outbox in development), ` +
        `single use, valid ${PASSWORD_RESET_TTL_MINUTES} minutes; asking again ends the earlier link.`,
      tag: 'Dashboard',
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
    async ({ body }, req, res) => {
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
  );

  app.route(
    {
      method: 'post',
      path: '/auth/password-reset/confirm',
      operationId: 'confirmPasswordReset',
      summary: 'Choose a new password with an emailed link',
      description:
        'The token of a password reset link or of an emailed invitation, and the new password (12 characters or more, not a common or breached one). The link is spent, and every session of the user ends: the answer is no session; sign in with the new password (and a code, with a second factor).',
      tag: 'Dashboard',
      auth: { kind: 'none' },
      request: { body: named('PasswordResetConfirmRequest', ZUsePasswordLinkRequest) },
      responses: {
        200: { description: 'The password is set', data: ZPasswordSet },
        400: {
          description:
            'invalid_request: the link is unknown, already used, expired, replaced by a newer one, or its user changed since (a new password, a sign-out, a removal; field token); or the password is too short or too common (field password)',
        },
      },
    },
    async ({ body }, req, res) => {
      const used = await usePasswordLink(deps.db, { token: body.token, password: body.password });
      await recordAuditAfter(
        deps.db,
        req,
        { action: 'user.password_reset', objectId: used.user.userId, details: { via: used.purpose } },
        { workspaceId: used.user.workspaceId, actor: { type: 'user', userId: used.user.userId, email: used.user.email } },
      );
      sendData(req, res, 200, { email: used.user.email, password_set: true });
    },
  );
}

import { z } from 'zod';
import { AppError, parsePathId } from '@cowrie/core';
import {
  USER_ROLES,
  ZChangeRoleRequest,
  ZInviteUserRequest,
  announceApiKeyChange,
  changeUserRole,
  inviteUser,
  passwordLinkEmail,
  listTeam,
  listUserApiKeys,
  removeUser,
  resetSecondFactor,
  type RemovedUserView,
  type TeamMemberView,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { recordAudit, recordAuditAfter } from '../http/audit';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';
import { ZApiKey } from './api-keys';

const ZTeamMember = named(
  'TeamMember',
  responseOf<TeamMemberView>()(
    z.object({
      id: z.number().int(),
      email: z.string(),
      role: z.enum(USER_ROLES).meta({ description: 'owner (made with the CLI), admin or member; owners and admins manage the team' }),
      status: z.enum(['active', 'removed']),
      password_change_required: z.boolean().meta({ description: 'Has not yet replaced the one-time password of their invitation' }),
      mfa_enabled: z.boolean().meta({ description: 'Signs in with a second factor (TOTP)' }),
      invited_by_user_id: z.number().int().nullable().meta({ description: 'Who invited them; null for owners the operator CLI made' }),
      one_time_password_expires_at: ZTimestamp.nullable().meta({
        description:
          'While password_change_required: when the one-time password stops signing in (72 hours after the invitation; at once when the inviter is removed); else null',
      }),
      created_at: ZTimestamp,
    }),
  ),
);
const ZRemovedUser = named(
  'RemovedUser',
  responseOf<RemovedUserView>()(
    ZTeamMember.extend({
      api_keys: z.array(ZApiKey).meta({ description: 'The API keys the user made (both modes), after the removal: revoked ones too, newest first' }),
    }),
  ),
);
const ZRemoveUserQuery = z.object({
  revoke_api_keys: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'true: revoke every API key the user made that still works (an expiring one too), in the same step' }),
});
const ZInvitedUser = named(
  'InvitedUser',
  z.object({
    user: ZTeamMember,
    one_time_password: z.string().meta({ description: 'Shown once, here only: the new user signs in with it and must then choose their own' }),
  }),
);
const ZInvitedUserByEmail = named(
  'InvitedUserByEmail',
  z.object({
    user: ZTeamMember,
    invite: z.object({
      delivery: z.literal('email').meta({ description: 'A link to choose their password went to their email (DASHBOARD_INVITES=email); no one-time password' }),
      email_sent: z.boolean().meta({
        description:
          'Whether the email provider took the email; if not, they can ask for a link with "Forgot password?" (POST /auth/password-reset) until the invitation expires',
      }),
      expires_at: ZTimestamp.meta({ description: 'When the link stops working (72 hours; at once when the inviter is removed)' }),
    }),
  }),
);
const ZUserParams = z.object({ id: z.string().meta({ description: 'User id' }) });
const notFound = { 404: { description: 'not_found: no such user in this workspace' } };
const parseUserId = (raw: string) => parsePathId(raw, () => new AppError('not_found', 'No such user in this workspace'));

/**
 * The business's dashboard users (whichever mode the session chose: users
 * belong to the business). Everyone signed in lists them; owners and admins
 * invite and remove.
 */
export function registerTeamRoutes(app: RouteMount, deps: GatewayDeps) {
  const tag = 'Team (dashboard)';

  app.route(
    {
      method: 'get',
      path: '/users',
      operationId: 'listUsers',
      summary: "The workspace's dashboard users",
      tag,
      auth: { kind: 'session' },
      responses: { 200: { description: 'Users, oldest first, removed ones included', data: z.array(ZTeamMember) } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await listTeam(deps.db, sessionOf(req).businessId));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/users',
      operationId: 'inviteUser',
      summary: 'Add a user (a one-time password, or a link by email)',
      description:
        'Owners and admins only. Without email invitations (DASHBOARD_INVITES=one_time_password, the default unless VERIFY_EMAIL_PROVIDER=smtp) the answer holds a one-time password, returned once; ' +
        'the new user must choose their own at first sign-in. With them, a link to choose their password goes to their email and the answer says so (`invite`), with no password. ' +
        'Send Idempotency-Key: a retry then answers with the same user (and password) instead of failing on the email.',
      tag,
      auth: { kind: 'session', role: 'team_admin', stepUp: true },
      idempotent: true,
      responseHoldsSecret: true,
      request: { body: named('InviteUserRequest', ZInviteUserRequest) },
      responses: {
        201: { description: 'The user, and their one-time password or how the link went', data: z.union([ZInvitedUser, ZInvitedUserByEmail]) },
        400: { description: 'invalid_request: a bad email or role, or a user with this email exists' },
        403: { description: 'insufficient_scope: the signed-in user is a member' },
      },
    },
    async ({ body }, req, res) => {
      const delivery = deps.config.DASHBOARD_INVITES;
      const invited = await inviteUser(deps.db, {
        workspaceId: sessionOf(req).businessId,
        email: body.email,
        role: body.role,
        invitedByUserId: sessionOf(req).userId,
        delivery,
      });
      const { user } = invited;
      if (invited.kind === 'one_time_password') {
        await recordAuditAfter(deps.db, req, { action: 'user.invited', objectId: user.id, details: { email: user.email, role: user.role } });
        sendData(req, res, 201, { user, one_time_password: invited.one_time_password });
        return;
      }
      let emailSent = true;
      try {
        // DASHBOARD_URL is set whenever invitations go by email (the configuration refuses otherwise).
        const message = passwordLinkEmail(deps.config.DASHBOARD_URL ?? '', 'invitation', invited.link.token, { role: user.role });
        await deps.email.sendEmail({ to: user.email, kind: 'invitation', ...message });
      } catch (err) {
        emailSent = false;
        req.log.error({ err: { message: (err as Error).message }, userId: user.id }, 'invitation email not sent');
      }
      await recordAuditAfter(deps.db, req, {
        action: 'user.invited',
        objectId: user.id,
        details: { email: user.email, role: user.role, delivery: 'email', email_sent: emailSent },
      });
      sendData(req, res, 201, { user, invite: { delivery: 'email', email_sent: emailSent, expires_at: invited.link.expiresAt.toISOString() } });
    },
  );

  app.route(
    {
      method: 'delete',
      path: '/users/:id',
      operationId: 'removeUser',
      summary: 'Remove a user',
      description:
        'Owners and admins only; not yourself, and only an owner removes an owner. The user can no longer sign in, and their sessions end at once; ' +
        "the one-time passwords of their invitations not yet replaced end too. The answer lists the API keys they made; with revoke_api_keys=true they are revoked in the same step (a removed user's keys can be revoked by removing them again).",
      tag,
      auth: { kind: 'session', role: 'team_admin' },
      request: { params: ZUserParams, query: ZRemoveUserQuery },
      responses: {
        200: { description: 'The removed user and the API keys they made', data: ZRemovedUser },
        403: { description: 'insufficient_scope: the signed-in user is a member, or an admin removing an owner' },
        ...notFound,
      },
    },
    async ({ params, query }, req, res) => {
      const session = sessionOf(req);
      const { revokedApiKeys, ...removed } = await removeUser(deps.db, {
        workspaceId: session.businessId,
        actor: session,
        id: parseUserId(params.id),
        revokeApiKeys: query.revoke_api_keys === 'true',
        alsoInTransaction: (tx, user, revokedCount) =>
          recordAudit(tx, req, {
            action: 'user.removed',
            objectId: user.id,
            details: { email: user.email, role: user.role, revoked_api_keys: revokedCount },
          }),
      });
      if (revokedApiKeys > 0) await announceApiKeyChange(deps.redis, deps.config.REDIS_KEY_PREFIX);
      sendData(req, res, 200, removed);
    },
  );

  app.route(
    {
      method: 'put',
      path: '/users/:id/role',
      operationId: 'changeUserRole',
      summary: "Change a user's role",
      description:
        'Owners change any role; admins move users between admin and member, never to or from owner. Not your own role, not a removed user, ' +
        'and never the last owner of the business. In force from their next request.',
      tag,
      auth: { kind: 'session', role: 'team_admin', stepUp: true },
      request: { params: ZUserParams, body: named('ChangeRoleRequest', ZChangeRoleRequest) },
      responses: {
        200: { description: 'The user with their role', data: ZTeamMember },
        400: { description: 'invalid_request: your own role, a removed user, or the last owner (details.reason last_owner)' },
        403: {
          description:
            'insufficient_scope: the signed-in user is a member, an admin giving or taking the owner role, or has not stepped up (details.reason step_up_required)',
        },
        ...notFound,
      },
    },
    async ({ params, body }, req, res) => {
      const session = sessionOf(req);
      const changed = await changeUserRole(deps.db, { workspaceId: session.businessId, actor: session, id: parseUserId(params.id), role: body.role });
      if (changed.from !== changed.user.role) {
        await recordAuditAfter(deps.db, req, {
          action: 'user.role_changed',
          objectId: changed.user.id,
          details: { email: changed.user.email, from: changed.from, to: changed.user.role },
        });
      }
      sendData(req, res, 200, changed.user);
    },
  );

  app.route(
    {
      method: 'get',
      path: '/users/:id/api-keys',
      operationId: 'listUserApiKeys',
      summary: 'The API keys a user made',
      description:
        'Owners and admins only: the keys a user of the business made from the dashboard (both modes, revoked ones too), newest first; before removing them, for instance.',
      tag,
      auth: { kind: 'session', role: 'team_admin' },
      request: { params: ZUserParams },
      responses: {
        200: { description: 'Their keys', data: z.array(ZApiKey) },
        403: { description: 'insufficient_scope: the signed-in user is a member' },
        ...notFound,
      },
    },
    async ({ params }, req, res) => {
      sendData(req, res, 200, await listUserApiKeys(deps.db, { workspaceId: sessionOf(req).businessId, id: parseUserId(params.id) }));
    },
  );

  app.route(
    {
      method: 'delete',
      path: '/users/:id/mfa',
      operationId: 'resetUserSecondFactor',
      summary: "Reset a user's second factor",
      description:
        'Owners only, for another user (a lost phone): their TOTP secret and recovery codes are deleted and their sessions end. ' +
        'They sign in with their password alone, and enrol again (as an owner or admin under REQUIRE_MFA_FOR_ADMINS, before anything else).',
      tag,
      auth: { kind: 'session', role: 'owner', stepUp: true },
      request: { params: ZUserParams },
      responses: {
        200: { description: 'The user, without a second factor', data: ZTeamMember },
        400: { description: 'invalid_request: your own (turn it off with a code: POST /auth/mfa/totp/disable)' },
        403: { description: 'insufficient_scope: the signed-in user is not an owner, or has not stepped up (details.reason step_up_required)' },
        ...notFound,
      },
    },
    async ({ params }, req, res) => {
      const session = sessionOf(req);
      const reset = await resetSecondFactor(deps.db, { workspaceId: session.businessId, actor: session, id: parseUserId(params.id) });
      // After the reset's own transaction (both its statements, one batch).
      await recordAuditAfter(deps.db, req, {
        action: 'user.mfa_reset',
        objectId: reset.user.id,
        details: { email: reset.user.email, had_second_factor: reset.hadSecondFactor },
      });
      sendData(req, res, 200, reset.user);
    },
  );
}

import { z } from 'zod';
import { AppError, parsePathId } from '@cowrie/core';
import { USER_ROLES, ZInviteUserRequest, inviteUser, listTeam, removeUser, resetSecondFactor, type TeamMemberView } from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { recordAudit, recordAuditAfter } from '../http/audit';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';

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
      created_at: ZTimestamp,
    }),
  ),
);
const ZInvitedUser = named(
  'InvitedUser',
  z.object({
    user: ZTeamMember,
    one_time_password: z.string().meta({ description: 'Shown once, here only: the new user signs in with it and must then choose their own' }),
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
      summary: 'Add a user with a one-time password',
      description:
        'Owners and admins only. The one-time password is returned once; the new user must choose their own at first sign-in. ' +
        'Send Idempotency-Key: a retry then answers with the same user and password instead of failing on the email.',
      tag,
      auth: { kind: 'session', role: 'team_admin', stepUp: true },
      idempotent: true,
      responseHoldsSecret: true,
      request: { body: named('InviteUserRequest', ZInviteUserRequest) },
      responses: {
        201: { description: 'The user and their one-time password', data: ZInvitedUser },
        400: { description: 'invalid_request: a bad email or role, or a user with this email exists' },
        403: { description: 'insufficient_scope: the signed-in user is a member' },
      },
    },
    async ({ body }, req, res) => {
      const invited = await inviteUser(deps.db, { workspaceId: sessionOf(req).businessId, email: body.email, role: body.role });
      const { user } = invited;
      await recordAuditAfter(deps.db, req, { action: 'user.invited', objectId: user.id, details: { email: user.email, role: user.role } });
      sendData(req, res, 201, invited);
    },
  );

  app.route(
    {
      method: 'delete',
      path: '/users/:id',
      operationId: 'removeUser',
      summary: 'Remove a user',
      description: 'Owners and admins only; not yourself, and only an owner removes an owner. The user can no longer sign in, and their sessions end at once.',
      tag,
      auth: { kind: 'session', role: 'team_admin' },
      request: { params: ZUserParams },
      responses: {
        200: { description: 'The removed user', data: ZTeamMember },
        403: { description: 'insufficient_scope: the signed-in user is a member, or an admin removing an owner' },
        ...notFound,
      },
    },
    async ({ params }, req, res) => {
      const session = sessionOf(req);
      const removed = await deps.db.$transaction(async (tx) => {
        const user = await removeUser(tx, { workspaceId: session.businessId, actor: session, id: parseUserId(params.id) });
        await recordAudit(tx, req, { action: 'user.removed', objectId: user.id, details: { email: user.email, role: user.role } });
        return user;
      });
      sendData(req, res, 200, removed);
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

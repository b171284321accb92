import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZApiKey } from '../keys/schemas';
import { ZChangeRoleBody, ZInviteUserBody, ZInvitedUser, ZInvitedUserByEmail, ZRemoveUserQuery, ZRemovedUser, ZTeamMember, ZUserParams } from './schemas';

const tag = 'Team (dashboard)';
const notFound = { 404: { description: 'not_found: no such user in this workspace' } };

/**
 * The business's dashboard users (whichever mode the session chose: users
 * belong to the business). Everyone signed in lists them; owners and admins
 * invite and remove. Keyed by their operationId, in the order they are mounted.
 */
export const teamDashboardSpecs = {
  listUsers: {
    method: 'get',
    path: '/users',
    operationId: 'listUsers',
    summary: "The workspace's dashboard users",
    tag,
    auth: { kind: 'session' },
    responses: { 200: { description: 'Users, oldest first, removed ones included', data: z.array(ZTeamMember) } },
  },
  inviteUser: {
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
    request: { body: ZInviteUserBody },
    responses: {
      201: { description: 'The user, and their one-time password or how the link went', data: z.union([ZInvitedUser, ZInvitedUserByEmail]) },
      400: { description: 'invalid_request: a bad email or role, or a user with this email exists' },
      403: { description: 'insufficient_scope: the signed-in user is a member' },
    },
  },
  removeUser: {
    method: 'delete',
    path: '/users/:id',
    operationId: 'removeUser',
    summary: 'Remove a user',
    description:
      'Owners and admins only; not yourself, and only an owner removes an owner. The user can no longer sign in, and their sessions end at once; ' +
      "the one-time passwords of their invitations not yet replaced end too, and their pending payout requests are rejected (`payout_request.rejected`, on each side). The answer lists the API keys they made; with revoke_api_keys=true they are revoked in the same step (a removed user's keys can be revoked by removing them again).",
    tag,
    auth: { kind: 'session', role: 'team_admin' },
    request: { params: ZUserParams, query: ZRemoveUserQuery },
    responses: {
      200: { description: 'The removed user and the API keys they made', data: ZRemovedUser },
      403: { description: 'insufficient_scope: the signed-in user is a member, or an admin removing an owner' },
      ...notFound,
    },
  },
  changeUserRole: {
    method: 'put',
    path: '/users/:id/role',
    operationId: 'changeUserRole',
    summary: "Change a user's role",
    description:
      'Owners change any role; admins move users between admin and member, never to or from owner. Not your own role, not a removed user, ' +
      'and never the last owner of the business. In force from their next request; a user made a member has their pending payout requests rejected in the same step (`payout_request.rejected`).',
    tag,
    auth: { kind: 'session', role: 'team_admin', stepUp: true },
    request: { params: ZUserParams, body: ZChangeRoleBody },
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
  listUserApiKeys: {
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
  resetUserSecondFactor: {
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
} satisfies Record<string, AnyRouteSpec>;

import { z } from 'zod';
import { USER_ROLES, ZChangeRoleRequest, ZInviteUserRequest, type RemovedUserView, type TeamMemberView } from '@cowrie/accounts';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';
import { ZApiKey } from '../keys/schemas';

// The business's dashboard users: the requests and answers of their routes.

export const ZTeamMember = named(
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
export const ZRemovedUser = named(
  'RemovedUser',
  responseOf<RemovedUserView>()(
    ZTeamMember.extend({
      api_keys: z.array(ZApiKey).meta({ description: 'The API keys the user made (both modes), after the removal: revoked ones too, newest first' }),
    }),
  ),
);
export const ZRemoveUserQuery = z.object({
  revoke_api_keys: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'true: revoke every API key the user made that still works (an expiring one too), in the same step' }),
});
export const ZInvitedUser = named(
  'InvitedUser',
  z.object({
    user: ZTeamMember,
    one_time_password: z.string().meta({ description: 'Shown once, here only: the new user signs in with it and must then choose their own' }),
  }),
);
export const ZInvitedUserByEmail = named(
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

export const ZInviteUserBody = named('InviteUserRequest', ZInviteUserRequest);
export const ZChangeRoleBody = named('ChangeRoleRequest', ZChangeRoleRequest);

// The id is read by parseUserId: anything that is not a user of the business is 404.
export const ZUserParams = z.object({ id: z.string().meta({ description: 'User id' }) });

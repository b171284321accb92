import { AppError, parsePathId } from '@cowrie/core';
import {
  announceApiKeyChange,
  changeUserRole,
  inviteUser,
  passwordLinkEmail,
  listTeam,
  listUserApiKeys,
  removeUser,
  resetSecondFactor,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData, sessionOf } from '../../http/respond';
import { recordAudit, recordAuditAfter } from '../../http/audit';
import { rejectRequestsOnTeamChange } from '../payouts/handlers';
import type { teamDashboardSpecs } from './specs';

const parseUserId = (raw: string) => parsePathId(raw, () => new AppError('not_found', 'No such user in this workspace'));

/**
 * One handler per team route (teamDashboardSpecs): each calls @cowrie/accounts, records the audit row and answers. A removal
 * or a role change also rejects, in its transaction, the pending payout requests of a user who may no longer ask for payouts.
 */
export function createTeamDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof teamDashboardSpecs> {
  return {
    async listUsers(_input, req, res) {
      sendData(req, res, 200, await listTeam(deps.db, sessionOf(req).businessId));
    },

    async inviteUser({ body }, req, res) {
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

    async removeUser({ params, query }, req, res) {
      const session = sessionOf(req);
      const { revokedApiKeys, ...removed } = await removeUser(deps.db, {
        workspaceId: session.businessId,
        actor: session,
        id: parseUserId(params.id),
        revokeApiKeys: query.revoke_api_keys === 'true',
        alsoInTransaction: async (tx, user, revokedCount) => {
          await recordAudit(tx, req, {
            action: 'user.removed',
            objectId: user.id,
            details: { email: user.email, role: user.role, revoked_key_count: revokedCount },
          });
          await rejectRequestsOnTeamChange(tx, req, user.id);
        },
      });
      if (revokedApiKeys > 0) await announceApiKeyChange(deps.redis, deps.config.REDIS_KEY_PREFIX);
      sendData(req, res, 200, removed);
    },

    async changeUserRole({ params, body }, req, res) {
      const session = sessionOf(req);
      const changed = await changeUserRole(deps.db, {
        workspaceId: session.businessId,
        actor: session,
        id: parseUserId(params.id),
        role: body.role,
        alsoInTransaction: (tx, { user }) => rejectRequestsOnTeamChange(tx, req, user.id),
      });
      if (changed.from !== changed.user.role) {
        await recordAuditAfter(deps.db, req, {
          action: 'user.role_changed',
          objectId: changed.user.id,
          details: { email: changed.user.email, from: changed.from, to: changed.user.role },
        });
      }
      sendData(req, res, 200, changed.user);
    },

    async listUserApiKeys({ params }, req, res) {
      sendData(req, res, 200, await listUserApiKeys(deps.db, { workspaceId: sessionOf(req).businessId, id: parseUserId(params.id) }));
    },

    async resetUserSecondFactor({ params }, req, res) {
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
  };
}

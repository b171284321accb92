import { AppError, parsePathId } from '@cowrie/core';
import { announceApiKeyChange, createOwnApiKey, listOwnApiKeys, revokeOwnApiKey, rollOwnApiKey } from '@cowrie/accounts';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData, sessionOf } from '../../http/respond';
import { recordAudit } from '../../http/audit';
import type { apiKeyDashboardSpecs } from './specs';

/** A key id from the path; anything that is not a positive integer is simply not one of the workspace's keys. */
const parseKeyId = (raw: string): number => parsePathId(raw, () => new AppError('not_found', 'No such API key in this workspace'));

/** One handler per API key route (apiKeyDashboardSpecs): each calls @cowrie/accounts, records the audit row and answers. */
export function createApiKeyDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof apiKeyDashboardSpecs> {
  return {
    async createApiKey({ body }, req, res) {
      const session = sessionOf(req);
      const created = await deps.db.$transaction(async (tx) => {
        const key = await createOwnApiKey(tx, { workspaceId: session.workspaceId, mode: session.mode, input: body, createdByUserId: session.userId });
        await recordAudit(tx, req, { action: 'api_key.created', objectId: key.id, details: { prefix: key.prefix, name: key.name, scopes: key.scopes } });
        return key;
      });
      sendData(req, res, 201, created);
    },

    async listApiKeys(_input, req, res) {
      sendData(req, res, 200, await listOwnApiKeys(deps.db, sessionOf(req).workspaceId));
    },

    async revokeApiKey({ params }, req, res) {
      const revoked = await deps.db.$transaction(async (tx) => {
        const key = await revokeOwnApiKey(tx, { workspaceId: sessionOf(req).workspaceId, id: parseKeyId(params.id) });
        await recordAudit(tx, req, { action: 'api_key.revoked', objectId: key.id, details: { prefix: key.prefix } });
        return key;
      });
      await announceApiKeyChange(deps.redis, deps.config.REDIS_KEY_PREFIX);
      sendData(req, res, 200, revoked);
    },

    async rollApiKey({ params, body }, req, res) {
      const { workspaceId, userId } = sessionOf(req);
      const id = parseKeyId(params.id);
      const rolled = await deps.db.$transaction(async (tx) => {
        const roll = await rollOwnApiKey(tx, { workspaceId, id, graceSeconds: body.grace_seconds, createdByUserId: userId });
        const { previous } = roll;
        await recordAudit(tx, req, {
          action: 'api_key.rolled',
          objectId: previous.id,
          details: { prefix: previous.prefix, new_key_id: roll.id, new_prefix: roll.prefix, old_key_stops_at: previous.expires_at },
        });
        return roll;
      });
      await announceApiKeyChange(deps.redis, deps.config.REDIS_KEY_PREFIX);
      sendData(req, res, 201, rolled);
    },
  };
}

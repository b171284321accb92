import { z } from 'zod';
import { AppError, parsePathId } from '@cowrie/core';
import {
  SCOPES,
  ZCreateApiKeyRequest,
  ZRollApiKeyRequest,
  announceApiKeyChange,
  createOwnApiKey,
  listOwnApiKeys,
  revokeOwnApiKey,
  rollOwnApiKey,
  type ApiKeyView,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { recordAudit } from '../http/audit';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';

const keyFields = {
  id: z.number().int(),
  name: z.string().nullable().meta({ description: 'The label its owner chose; null for a key the operator CLI made without one' }),
  prefix: z.string().meta({ description: '`ck_<mode>_<lookup id>`: tells keys apart; the secret part is never shown again' }),
  mode: z.enum(['live', 'test']),
  scopes: z.array(z.enum(SCOPES)),
  status: z.enum(['active', 'expiring', 'revoked']).meta({ description: 'expiring: a rolled key still in its grace period, until expires_at' }),
  created_at: ZTimestamp,
  last_used_at: ZTimestamp.nullable().meta({ description: 'Last request it authenticated, to the minute' }),
  expires_at: ZTimestamp.nullable().meta({ description: 'When an expiring key stops working, or when a revoked one stopped' }),
  created_by_user_id: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The dashboard user whose session made it (a create or a roll); null for a key the operator CLI made' }),
};
export const ZApiKey = named('ApiKey', responseOf<ApiKeyView>()(z.object(keyFields)));
const ZCreatedApiKey = named(
  'CreatedApiKey',
  responseOf<ApiKeyView & { key: string }>()(
    z.object({ ...keyFields, key: z.string().meta({ description: 'The API key; returned once, here only (only its SHA-256 is stored)' }) }),
  ),
);
const ZRolledApiKey = named(
  'RolledApiKey',
  responseOf<ApiKeyView & { key: string; previous: ApiKeyView }>()(
    z.object({
      ...keyFields,
      key: z.string().meta({ description: 'The new API key; returned once, here only' }),
      previous: ZApiKey.meta({ description: 'The rolled key: expiring until the grace period ends (revoked at once for a grace of 0)' }),
    }),
  ),
);
const ZKeyParams = z.object({ id: z.string().meta({ description: 'API key id' }) });
const notFound = { 404: { description: 'not_found: no such API key in this workspace' } };

/** A key id from the path; anything that is not a positive integer is simply not one of the workspace's keys. */
const parseKeyId = (raw: string): number => parsePathId(raw, () => new AppError('not_found', 'No such API key in this workspace'));

/**
 * Self-service API keys: a dashboard session creates, lists, revokes and
 * rolls the keys of its workspace (the side its Cowrie-Mode chose). A key is
 * shown once, when it is made; lists show its prefix only.
 */
export function registerApiKeyRoutes(app: RouteMount, deps: GatewayDeps) {
  const auth = { kind: 'session' } as const;
  // Making a key (or a new one in a roll) hands out the workspace's money: a guarded change.
  const guarded = { kind: 'session', stepUp: true } as const;
  const tag = 'API keys (dashboard)';

  app.route(
    {
      method: 'post',
      path: '/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description:
        "The key is returned once. It is a key of the session's mode (Cowrie-Mode: test makes a ck_test_ key). " +
        'Send Idempotency-Key: a retry then answers with the same key instead of making a second one.',
      tag,
      auth: guarded,
      idempotent: true,
      responseHoldsSecret: true,
      request: { body: named('CreateApiKeyRequest', ZCreateApiKeyRequest) },
      responses: { 201: { description: 'The key, shown this once', data: ZCreatedApiKey } },
    },
    async ({ body }, req, res) => {
      const session = sessionOf(req);
      const created = await deps.db.$transaction(async (tx) => {
        const key = await createOwnApiKey(tx, { workspaceId: session.workspaceId, mode: session.mode, input: body, createdByUserId: session.userId });
        await recordAudit(tx, req, { action: 'api_key.created', objectId: key.id, details: { prefix: key.prefix, name: key.name, scopes: key.scopes } });
        return key;
      });
      sendData(req, res, 201, created);
    },
  );

  app.route(
    {
      method: 'get',
      path: '/api-keys',
      operationId: 'listApiKeys',
      summary: "List the workspace's API keys",
      description: 'Newest first, revoked ones included; never the keys themselves.',
      tag,
      auth,
      responses: { 200: { description: 'The keys', data: z.array(ZApiKey) } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await listOwnApiKeys(deps.db, sessionOf(req).workspaceId));
    },
  );

  app.route(
    {
      method: 'delete',
      path: '/api-keys/:id',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key now',
      description: 'Its next request is 401, on every replica. Revoking a revoked key answers it as it is.',
      tag,
      auth,
      request: { params: ZKeyParams },
      responses: { 200: { description: 'The revoked key', data: ZApiKey }, ...notFound },
    },
    async ({ params }, req, res) => {
      const revoked = await deps.db.$transaction(async (tx) => {
        const key = await revokeOwnApiKey(tx, { workspaceId: sessionOf(req).workspaceId, id: parseKeyId(params.id) });
        await recordAudit(tx, req, { action: 'api_key.revoked', objectId: key.id, details: { prefix: key.prefix } });
        return key;
      });
      await announceApiKeyChange(deps.redis, deps.config.REDIS_KEY_PREFIX);
      sendData(req, res, 200, revoked);
    },
  );

  app.route(
    {
      method: 'post',
      path: '/api-keys/:id/roll',
      operationId: 'rollApiKey',
      summary: 'Roll an API key',
      description:
        'A new key with the same name and scopes, returned once; the old key keeps working for `grace_seconds` (default a day), then stops. ' +
        'Send Idempotency-Key: a retry then replays the same new key instead of making another.',
      tag,
      auth: guarded,
      idempotent: true,
      responseHoldsSecret: true,
      request: { params: ZKeyParams, body: named('RollApiKeyRequest', ZRollApiKeyRequest) },
      responses: {
        201: { description: 'The new key, shown this once, and the old one', data: ZRolledApiKey },
        400: { description: 'invalid_request: the key is revoked, or grace_seconds is out of range' },
        ...notFound,
      },
    },
    async ({ params, body }, req, res) => {
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
  );
}

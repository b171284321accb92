import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZApiKey, ZCreateApiKeyBody, ZCreatedApiKey, ZKeyParams, ZRollApiKeyBody, ZRolledApiKey } from './schemas';

const auth = { kind: 'session' } as const;
// Making a key (or a new one in a roll) hands out the workspace's money: a guarded change.
const guarded = { kind: 'session', stepUp: true } as const;
const tag = 'API keys (dashboard)';
const notFound = { 404: { description: 'not_found: no such API key in this workspace' } };

/**
 * Self-service API keys: a dashboard session creates, lists, revokes and
 * rolls the keys of its workspace (the side its Cowrie-Mode chose). A key is
 * shown once, when it is made; lists show its prefix only. Keyed by their
 * operationId, in the order they are mounted.
 */
export const apiKeyDashboardSpecs = {
  createApiKey: {
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
    request: { body: ZCreateApiKeyBody },
    responses: { 201: { description: 'The key, shown this once', data: ZCreatedApiKey } },
  },
  listApiKeys: {
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: "List the workspace's API keys",
    description: 'Newest first, revoked ones included; never the keys themselves.',
    tag,
    auth,
    responses: { 200: { description: 'The keys', data: z.array(ZApiKey) } },
  },
  revokeApiKey: {
    method: 'delete',
    path: '/api-keys/:id',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key now',
    description:
      'Its next request is 401, on every replica; an expiring key (the old key of a roll) stops now too. Revoking a revoked key answers it as it is. ' +
      'A revoke always wins over a roll of the same key at the same moment: the roll is refused, or its grace is cut short.',
    tag,
    auth,
    request: { params: ZKeyParams },
    responses: { 200: { description: 'The revoked key', data: ZApiKey }, ...notFound },
  },
  rollApiKey: {
    method: 'post',
    path: '/api-keys/:id/roll',
    operationId: 'rollApiKey',
    summary: 'Roll an API key',
    description:
      'A new key with the same name and scopes, returned once; the old key keeps working for `grace_seconds` (default a day), then stops. ' +
      'Only an active key is rolled: a key has at most one successor, and of rolls at the same moment one answers 201 and the others are refused (api_key_rolled). ' +
      'Send Idempotency-Key: a retry then replays the same new key instead of making another.',
    tag,
    auth: guarded,
    idempotent: true,
    responseHoldsSecret: true,
    request: { params: ZKeyParams, body: ZRollApiKeyBody },
    responses: {
      201: { description: 'The new key, shown this once, and the old one', data: ZRolledApiKey },
      400: {
        description:
          'invalid_request: grace_seconds is out of range, or the key is not active (details.field id): details.reason api_key_revoked (revoked, or its grace is over) or api_key_rolled (already rolled, earlier or by another request at the same moment: roll its successor)',
      },
      ...notFound,
    },
  },
} satisfies Record<string, AnyRouteSpec>;

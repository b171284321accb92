import { z } from 'zod';
import { SCOPES, ZCreateApiKeyRequest, ZRollApiKeyRequest, type ApiKeyView } from '@cowrie/accounts';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';

// Self-service API keys: the requests and answers of their routes.

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
export const ZCreatedApiKey = named(
  'CreatedApiKey',
  responseOf<ApiKeyView & { key: string }>()(
    z.object({ ...keyFields, key: z.string().meta({ description: 'The API key; returned once, here only (only its SHA-256 is stored)' }) }),
  ),
);
export const ZRolledApiKey = named(
  'RolledApiKey',
  responseOf<ApiKeyView & { key: string; previous: ApiKeyView }>()(
    z.object({
      ...keyFields,
      key: z.string().meta({ description: 'The new API key; returned once, here only' }),
      previous: ZApiKey.meta({ description: 'The rolled key: expiring until the grace period ends (revoked at once for a grace of 0)' }),
    }),
  ),
);

export const ZCreateApiKeyBody = named('CreateApiKeyRequest', ZCreateApiKeyRequest);
export const ZRollApiKeyBody = named('RollApiKeyRequest', ZRollApiKeyRequest);

// The id is read by parseKeyId: anything that is not one of the workspace's keys is 404.
export const ZKeyParams = z.object({ id: z.string().meta({ description: 'API key id' }) });

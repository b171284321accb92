import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZCapabilities, ZChannel, ZChannelsMeta } from './schemas';

/** What this deployment offers, under /v1 with an API key: keyed by their operationId, in the order they are mounted. */
export const catalogApiSpecs = {
  listChannels: {
    method: 'get',
    path: '/channels',
    operationId: 'listChannels',
    summary: 'Deposit channels and their availability',
    description:
      'Read this rather than hard-coding availability: an operator can change it per deployment. `data` holds the deposit channels; `meta.verification_channels` the channels a verification code travels on (sms, voice, email, whatsapp).',
    tag: 'Catalog',
    auth: { kind: 'api_key', scope: 'read' },
    responses: {
      200: {
        description: 'The channel catalog',
        data: z.array(ZChannel),
        meta: ZChannelsMeta,
      },
    },
  },
  getCapabilities: {
    method: 'get',
    path: '/capabilities',
    operationId: 'getCapabilities',
    summary: 'Machine-readable capability map',
    tag: 'Catalog',
    auth: { kind: 'api_key', scope: 'read' },
    responses: { 200: { description: 'Capability areas and deposit channel statuses', data: ZCapabilities } },
  },
  // Any valid key may ask; the answer is the same for everyone.
  createCard: {
    method: 'post',
    path: '/cards',
    operationId: 'createCard',
    summary: 'Cards (not available yet)',
    tag: 'Catalog',
    auth: { kind: 'api_key', scope: null },
    responses: {
      400: { description: 'invalid_request: the body is not valid JSON, or the Idempotency-Key is longer than 254 characters (details.field Idempotency-Key)' },
      501: { description: 'coming_soon: cards are not available yet' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;

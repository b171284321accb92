import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { CHANNEL_IDS, capabilityMap, type Channel } from '@cowrie/catalog';
import { VERIFICATION_CHANNELS, verificationChannelStatuses } from '@cowrie/verification';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData } from '../http/respond';
import { ZRequestId, named, responseOf } from '../openapi/schemas';

const ZStatus = named('Availability', z.enum(['live', 'coming_soon']));

const ZChannel = named(
  'Channel',
  responseOf<Channel>()(z.object({ id: z.enum(CHANNEL_IDS), label: z.string(), status: ZStatus, currencies: z.array(z.string()) })),
);

const ZCapabilityArea = named('CapabilityArea', z.object({ id: z.string(), label: z.string(), status: ZStatus, endpoints: z.array(z.string()) }));

const ZCapabilities = named(
  'Capabilities',
  responseOf<ReturnType<typeof capabilityMap>>()(
    z.object({
      api_version: z.string(),
      areas: z.array(ZCapabilityArea),
      deposit_channels: z.record(z.string(), ZStatus),
      verification_channels: z
        .record(z.string(), ZStatus)
        .meta({ description: 'The channels a verification code travels on (sms, voice, email, whatsapp) and their availability in live mode' }),
    }),
  ),
);

const ZVerificationChannelEntry = named('VerificationChannelEntry', z.object({ id: z.enum(VERIFICATION_CHANNELS), label: z.string(), status: ZStatus }));

const ZChannelsMeta = named('ChannelsMeta', z.object({ request_id: ZRequestId, verification_channels: z.array(ZVerificationChannelEntry) }));

const VERIFICATION_CHANNEL_LABELS: Record<(typeof VERIFICATION_CHANNELS)[number], string> = {
  sms: 'Codes by SMS',
  voice: 'Codes read out in a voice call',
  email: 'Codes by email',
  whatsapp: 'Codes on WhatsApp',
};

export function registerCatalogRoutes(v1: RouteMount, deps: GatewayDeps) {
  const verificationStatuses = verificationChannelStatuses(deps.config);
  const verificationChannels = VERIFICATION_CHANNELS.map((id) => ({ id, label: VERIFICATION_CHANNEL_LABELS[id], status: verificationStatuses[id] }));

  v1.route(
    {
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
    (_input, req, res) => {
      res.status(200).json({ data: deps.channels, meta: { request_id: req.id, verification_channels: verificationChannels } });
    },
  );

  v1.route(
    {
      method: 'get',
      path: '/capabilities',
      operationId: 'getCapabilities',
      summary: 'Machine-readable capability map',
      tag: 'Catalog',
      auth: { kind: 'api_key', scope: 'read' },
      responses: { 200: { description: 'Capability areas and deposit channel statuses', data: ZCapabilities } },
    },
    (_input, req, res) => sendData(req, res, 200, capabilityMap(deps.channels, verificationStatuses)),
  );

  // Any valid key may ask; the answer is the same for everyone.
  v1.route(
    {
      method: 'post',
      path: '/cards',
      operationId: 'createCard',
      summary: 'Cards (not available yet)',
      tag: 'Catalog',
      auth: { kind: 'api_key', scope: null },
      responses: { 501: { description: 'coming_soon: cards are not available yet' } },
    },
    () => {
      throw new AppError('coming_soon', 'Cards are not available yet.');
    },
  );
}

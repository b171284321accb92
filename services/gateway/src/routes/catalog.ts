import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { CHANNEL_IDS, capabilityMap, type Channel } from '@cowrie/catalog';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData } from '../http/respond';
import { named, responseOf } from '../openapi/schemas';

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
    }),
  ),
);

export function registerCatalogRoutes(v1: RouteMount, deps: GatewayDeps) {
  v1.route(
    {
      method: 'get',
      path: '/channels',
      operationId: 'listChannels',
      summary: 'Deposit channels and their availability',
      description: 'Read this rather than hard-coding availability: an operator can change it per deployment.',
      tag: 'Catalog',
      auth: { kind: 'api_key', scope: 'read' },
      responses: { 200: { description: 'The channel catalog', data: z.array(ZChannel) } },
    },
    (_input, req, res) => sendData(req, res, 200, deps.channels),
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
    (_input, req, res) => sendData(req, res, 200, capabilityMap(deps.channels)),
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

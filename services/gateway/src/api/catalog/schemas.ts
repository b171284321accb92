import { z } from 'zod';
import { CHANNEL_IDS, type Channel, type capabilityMap } from '@cowrie/catalog';
import { VERIFICATION_CHANNELS } from '@cowrie/verification';
import { ZRequestId, named, responseOf } from '../../openapi/schemas';

// The channel catalog and the capability map: the answers of their routes.

const ZStatus = named('Availability', z.enum(['live', 'coming_soon']));

export const ZChannel = named(
  'Channel',
  responseOf<Channel>()(z.object({ id: z.enum(CHANNEL_IDS), label: z.string(), status: ZStatus, currencies: z.array(z.string()) })),
);

const ZCapabilityArea = named('CapabilityArea', z.object({ id: z.string(), label: z.string(), status: ZStatus, endpoints: z.array(z.string()) }));

export const ZCapabilities = named(
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

export const ZChannelsMeta = named('ChannelsMeta', z.object({ request_id: ZRequestId, verification_channels: z.array(ZVerificationChannelEntry) }));

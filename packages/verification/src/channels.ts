import type { Config, Mode } from '@cowrie/core';
import { VERIFICATION_CHANNELS } from '@cowrie/events';

/** The channels a code can travel on (declared with the webhook events' data, which names them). */
export { VERIFICATION_CHANNELS };
export type VerificationChannel = (typeof VERIFICATION_CHANNELS)[number];

export const VERIFICATION_STATUSES = ['pending', 'verified', 'failed', 'expired'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** Channels whose destination is a phone number (validated and normalised alike). */
export const isPhoneChannel = (channel: VerificationChannel) => channel === 'sms' || channel === 'voice' || channel === 'whatsapp';

/** Channels the fraud guard counts and may refuse: the ones paid per message on the operators' routes, where SMS pumping pays. */
export const isGuardedChannel = (channel: VerificationChannel) => channel === 'sms' || channel === 'voice';

type AvailabilityConfig = Pick<Config, 'NODE_ENV' | 'ALLOW_SANDBOX_IN_PRODUCTION' | 'VERIFY_WHATSAPP_PROVIDER'>;

/**
 * Whether a channel can deliver in `mode`. Only WhatsApp may not: production
 * without a WhatsApp provider (and without ALLOW_SANDBOX_IN_PRODUCTION) would
 * hand live codes to the sandbox, which sends nothing. A deployment that does
 * not use WhatsApp need not configure it, so this is not a start-up error: the
 * channel is reported `coming_soon` and its starts are refused.
 */
export function channelAvailable(config: AvailabilityConfig, channel: VerificationChannel, mode: Mode): boolean {
  if (channel !== 'whatsapp' || mode === 'test') return true;
  return config.VERIFY_WHATSAPP_PROVIDER !== 'sandbox' || config.NODE_ENV !== 'production' || config.ALLOW_SANDBOX_IN_PRODUCTION;
}

/** Each channel's availability for live mode (GET /v1/capabilities and /v1/channels). */
export function verificationChannelStatuses(config: AvailabilityConfig): Record<VerificationChannel, 'live' | 'coming_soon'> {
  return Object.fromEntries(VERIFICATION_CHANNELS.map((c) => [c, channelAvailable(config, c, 'live') ? 'live' : 'coming_soon'])) as Record<
    VerificationChannel,
    'live' | 'coming_soon'
  >;
}

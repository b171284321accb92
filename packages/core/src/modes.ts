import type { Config } from './config';

/**
 * A workspace's data is live or test. Test mode always runs on the offline
 * sandbox rails and code providers, whatever the live configuration says:
 * a test key can never move real money or send a real message.
 */
export type Mode = 'live' | 'test';

export type RailChoices = Pick<Config, 'PAYOUT_RAILS' | 'COLLECTION_RAIL' | 'VERIFY_SMS_PROVIDER' | 'VERIFY_EMAIL_PROVIDER'>;

/** The rail or provider each kind of work uses in `mode` (what /readyz and the startup log report). */
export function railsInMode(config: RailChoices, mode: Mode) {
  if (mode === 'test') return { payouts: 'sandbox', collections: 'sandbox', sms: 'sandbox', email: 'sandbox' } as const;
  // Several payout rails read as their order of preference: `paystack,flutterwave`.
  return { payouts: config.PAYOUT_RAILS.join(','), collections: config.COLLECTION_RAIL, sms: config.VERIFY_SMS_PROVIDER, email: config.VERIFY_EMAIL_PROVIDER };
}

/** Both modes' rails and providers: the startup log and /readyz say which each mode uses. */
export const railsByMode = (config: RailChoices) => ({ live: railsInMode(config, 'live'), test: railsInMode(config, 'test') });

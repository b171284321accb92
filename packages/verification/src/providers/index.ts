import type { Config, Mode, RedisClient } from '@cowrie/core';
import type { VerificationChannel } from '../channels';
import { createSandboxProvider, sandboxOutbox } from './sandbox';
import { createSmtpProvider } from './smtp';
import { createTermiiProvider } from './termii';
import type { DeliveryProvider } from './types';
import { createWhatsAppProvider } from './whatsapp';

export * from './types';
export * from './sandbox';
export * from './smtp';
export * from './termii';
export * from './whatsapp';
export * from './email';

type ProviderConfig = Pick<
  Config,
  | 'REDIS_KEY_PREFIX'
  | 'ENCRYPTION_KEY'
  | 'VERIFY_SMS_PROVIDER'
  | 'VERIFY_EMAIL_PROVIDER'
  | 'VERIFY_SMTP_URL'
  | 'VERIFY_EMAIL_FROM'
  | 'VERIFY_TERMII_API_KEY'
  | 'VERIFY_TERMII_BASE_URL'
  | 'VERIFY_TERMII_SENDER_ID'
  | 'VERIFY_TERMII_CHANNEL'
  | 'VERIFY_WHATSAPP_PROVIDER'
  | 'WHATSAPP_ACCESS_TOKEN'
  | 'WHATSAPP_PHONE_NUMBER_ID'
  | 'WHATSAPP_TEMPLATE_NAME'
  | 'WHATSAPP_TEMPLATE_LANGUAGE'
  | 'WHATSAPP_BASE_URL'
  | 'VERIFY_PROVIDER_TIMEOUT_MS'
  | 'VERIFY_SANDBOX_RETENTION_SECONDS'
>;

/** The provider id each channel uses in `mode` under this configuration (stored on the row): always the sandbox in test mode. */
export function providerIdFor(
  config: Pick<Config, 'VERIFY_SMS_PROVIDER' | 'VERIFY_EMAIL_PROVIDER' | 'VERIFY_WHATSAPP_PROVIDER'>,
  channel: VerificationChannel,
  mode: Mode,
): string {
  if (mode === 'test') return 'sandbox';
  if (channel === 'whatsapp') return config.VERIFY_WHATSAPP_PROVIDER;
  return channel === 'email' ? config.VERIFY_EMAIL_PROVIDER : config.VERIFY_SMS_PROVIDER;
}

export interface DeliveryProviders {
  /** The provider of `channel` in `mode`: in test mode always the sandbox. */
  forChannel(channel: VerificationChannel, mode: Mode): DeliveryProvider;
  close(): Promise<void>;
}

/**
 * The providers chosen by env for live mode: sandbox by default, Termii for
 * sms/voice, SMTP for email and the WhatsApp Cloud API for whatsapp when configured. Test mode uses the sandbox,
 * whose messages say which mode they came from.
 */
export function createDeliveryProviders(config: ProviderConfig, redis: RedisClient): DeliveryProviders {
  const sandboxOf = (mode: Mode) =>
    createSandboxProvider({ outbox: sandboxOutbox(redis, config), retentionSeconds: config.VERIFY_SANDBOX_RETENTION_SECONDS, mode });
  const sandbox = sandboxOf('live');
  const testSandbox = sandboxOf('test');
  const phone: DeliveryProvider =
    config.VERIFY_SMS_PROVIDER === 'termii'
      ? createTermiiProvider({
          apiKey: config.VERIFY_TERMII_API_KEY ?? '',
          baseUrl: config.VERIFY_TERMII_BASE_URL,
          senderId: config.VERIFY_TERMII_SENDER_ID,
          smsChannel: config.VERIFY_TERMII_CHANNEL,
          timeoutMs: config.VERIFY_PROVIDER_TIMEOUT_MS,
        })
      : sandbox;
  const email: DeliveryProvider =
    config.VERIFY_EMAIL_PROVIDER === 'smtp'
      ? createSmtpProvider({ url: config.VERIFY_SMTP_URL ?? '', from: config.VERIFY_EMAIL_FROM, timeoutMs: config.VERIFY_PROVIDER_TIMEOUT_MS })
      : sandbox;
  const whatsapp: DeliveryProvider =
    config.VERIFY_WHATSAPP_PROVIDER === 'whatsapp_cloud'
      ? createWhatsAppProvider({
          accessToken: config.WHATSAPP_ACCESS_TOKEN ?? '',
          baseUrl: config.WHATSAPP_BASE_URL,
          phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID ?? '',
          templateName: config.WHATSAPP_TEMPLATE_NAME,
          templateLanguage: config.WHATSAPP_TEMPLATE_LANGUAGE,
          timeoutMs: config.VERIFY_PROVIDER_TIMEOUT_MS,
        })
      : sandbox;
  const live: Record<VerificationChannel, DeliveryProvider> = { sms: phone, voice: phone, email, whatsapp };
  return {
    forChannel: (channel, mode) => (mode === 'test' ? testSandbox : live[channel]),
    close: async () => {
      await Promise.allSettled([phone.close?.(), email.close?.(), whatsapp.close?.()]);
    },
  };
}

import type { Config, RedisClient } from '@cowrie/core';
import { createSandboxProvider, sandboxOutbox } from './sandbox';
import { createSmtpProvider } from './smtp';
import type { EmailSender } from './types';

/**
 * The sender of the dashboard's own emails (password resets, invitations):
 * live mode's email provider, the same one that sends email codes. SMTP when
 * VERIFY_EMAIL_PROVIDER=smtp; else the sandbox, whose outbox
 * `npx cowrie sandbox messages --destination <email>` shows.
 */
export function createEmailSender(
  config: Pick<
    Config,
    | 'REDIS_KEY_PREFIX'
    | 'ENCRYPTION_KEY'
    | 'VERIFY_EMAIL_PROVIDER'
    | 'VERIFY_SMTP_URL'
    | 'VERIFY_EMAIL_FROM'
    | 'VERIFY_PROVIDER_TIMEOUT_MS'
    | 'VERIFY_SANDBOX_RETENTION_SECONDS'
  >,
  redis: RedisClient,
): EmailSender {
  if (config.VERIFY_EMAIL_PROVIDER === 'smtp') {
    return createSmtpProvider({ url: config.VERIFY_SMTP_URL ?? '', from: config.VERIFY_EMAIL_FROM, timeoutMs: config.VERIFY_PROVIDER_TIMEOUT_MS });
  }
  return createSandboxProvider({ outbox: sandboxOutbox(redis, config), retentionSeconds: config.VERIFY_SANDBOX_RETENTION_SECONDS, mode: 'live' });
}

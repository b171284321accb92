import { z } from 'zod';
import {
  ZCheckVerificationRequest,
  ZStartVerificationRequest,
  type CheckOutcome,
  type DashboardVerificationRecord,
  type StartedVerification,
  type VerificationRecord,
} from '@cowrie/verification';
import { ZVerificationChannel as ZVerificationChannelData } from '@cowrie/events';
import { ZTimestamp, named, pageQueryFields, responseOf } from '../../openapi/schemas';

// One-time codes: the requests and answers of their routes, /v1's and the dashboard's.

/** The webhook events' catalog declares it: the verification events carry one. */
const ZVerificationChannel = named('VerificationChannel', ZVerificationChannelData);
const ZVerificationStatus = named('VerificationStatus', z.enum(['pending', 'verified', 'failed', 'expired']));
const ZReference = z.string().meta({ description: 'The verification reference (a UUID)' });

export const ZStartedVerification = named(
  'StartedVerification',
  responseOf<StartedVerification>()(
    z.object({
      reference: z.string().meta({ format: 'uuid' }),
      channel: ZVerificationChannel.meta({ description: 'sms, voice, email or whatsapp' }),
      destination: z.string().meta({ description: 'Masked' }),
      expiresAt: ZTimestamp,
      status: ZVerificationStatus,
    }),
  ),
);

export const ZCheckOutcome = named(
  'VerificationCheck',
  responseOf<CheckOutcome>()(
    z.union([
      z.object({ status: z.literal('verified') }),
      z.object({ status: z.literal('failed'), reason: z.literal('invalid_code'), attempts_remaining: z.number().int().min(0) }),
      z.object({ status: z.literal('failed'), reason: z.enum(['expired', 'not_found', 'failed', 'too_many_attempts']) }),
    ]),
  ),
);

export const ZVerificationRecord = named(
  'Verification',
  responseOf<VerificationRecord>()(
    z.object({
      reference: z.string().meta({ format: 'uuid' }),
      channel: ZVerificationChannel,
      destination: z.string().meta({ description: 'Masked' }),
      status: ZVerificationStatus,
      attempts: z.number().int(),
      max_attempts: z.number().int(),
      provider: z.string(),
      expires_at: ZTimestamp.nullable(),
      verified_at: ZTimestamp.nullable(),
      created_at: ZTimestamp,
    }),
  ),
);

export const ZReferenceParams = z.object({ reference: ZReference });

export const ZStartVerificationBody = named('StartVerificationRequest', ZStartVerificationRequest);
export const ZCheckVerificationBody = named('CheckVerificationRequest', ZCheckVerificationRequest);

// The dashboard's: the session's verifications and the fraud guard.

export const ZDashboardVerification = named(
  'DashboardVerification',
  responseOf<DashboardVerificationRecord>()(
    ZVerificationRecord.extend({
      delivery_status: z
        .enum(['delivered', 'undelivered'])
        .nullable()
        .meta({ description: "What the provider's delivery report said of the handset (null: no report yet, or a provider without reports)" }),
      delivery_reported_at: ZTimestamp.nullable().meta({ description: 'When the report says that happened' }),
    }),
  ),
);

export const ZVerificationsQuery = z.object({
  status: ZVerificationStatus.optional().meta({ description: 'Only verifications with this status' }),
  channel: ZVerificationChannel.optional().meta({ description: 'Only verifications sent on this channel' }),
  ...pageQueryFields,
});

export const ZGuardedPrefix = z.object({
  prefix: z.string().meta({ description: 'The country code and the first four national digits, e.g. `+234803 1`' }),
  starts: z.number().int(),
  verified: z.number().int(),
  conversion: z.number().nullable(),
  blocking: z.boolean().meta({ description: 'New sms and voice starts to it are refused (block) or would be (monitor)' }),
  retry_after_seconds: z.number().int().nullable(),
});

export const ZVerificationGuard = named(
  'VerificationGuard',
  z.object({
    mode: z.enum(['off', 'monitor', 'block']),
    min_starts: z.number().int(),
    min_conversion: z.number(),
    window_seconds: z.number().int(),
    conversion_by_channel: z.array(
      z.object({ channel: ZVerificationChannel, started: z.number().int(), verified: z.number().int(), conversion: z.number().nullable() }),
    ),
    prefixes: z.array(ZGuardedPrefix),
  }),
);

export const ZClearGuardRequest = named(
  'ClearVerificationGuardRequest',
  z.object({ prefix: z.string().max(20).meta({ description: 'The prefix to clear, as the guard lists it (`+234803 1`)' }) }),
);

import { z } from 'zod';
import {
  ZCheckVerificationRequest,
  ZStartVerificationRequest,
  type CheckOutcome,
  type StartedVerification,
  type VerificationRecord,
} from '@cowrie/verification';
import { ZVerificationChannel as ZVerificationChannelData } from '@cowrie/events';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';

// One-time codes: the requests and answers of their routes.

/** The webhook events' catalog declares it: the verification events carry one. */
export const ZVerificationChannel = named('VerificationChannel', ZVerificationChannelData);
export const ZVerificationStatus = named('VerificationStatus', z.enum(['pending', 'verified', 'failed', 'expired']));
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

import { z } from 'zod';
import { defineQueue, jobOf, recordJobId } from '@cowrie/core';
import type { VerificationDelivery } from './deliver-verification';

export const verificationsQueue = defineQueue(
  'verifications',
  {
    // Delivers one code; the code travels sealed with AES-256-GCM (ENCRYPTION_KEY), never in clear.
    'verification.deliver': jobOf<VerificationDelivery>()(z.object({ verificationId: z.number().int().positive(), sealedCode: z.string().min(1) })),
  },
  // A code is only useful for minutes and the caller is waiting: one attempt, the
  // outcome goes straight back to the gateway.
  { attempts: 1, removeOnComplete: { age: 600, count: 10_000 }, removeOnFail: { age: 86400 } },
);

/** The job id of a verification's `verification.deliver`: `verification-<id>-<reference>` (recordJobId). */
export const verificationJobId = (verification: { id: number; reference: string }) => recordJobId('verification', verification);

import { z } from 'zod';
import { VERIFICATION_CHANNELS, type VerificationChannel } from './channels';
import { SUPPLIED_CODE_PATTERN } from './code';
import { normaliseDestination } from './destination';
import { metadataProblem } from './metadata';

/** Longest destination we read before normalising (an email is at most 254). */
const DESTINATION_MAX_LENGTH = 320;

/**
 * Body of POST /v1/verifications. The destination is normalised here, so a bad
 * one fails validation (400 naming `destination`) before anything is counted
 * or sent.
 */
export const ZStartVerificationRequest = z
  .object({
    channel: z.enum(VERIFICATION_CHANNELS, {
      error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${VERIFICATION_CHANNELS.join(', ')}`),
    }),
    destination: z.string().min(1).max(DESTINATION_MAX_LENGTH),
    metadata: z
      .unknown()
      .optional()
      .superRefine((value, ctx) => {
        if (value === undefined || value === null) return;
        const problem = metadataProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    // Operator-supplied code (it bypasses generation: never from an untrusted client).
    code: z.string().regex(SUPPLIED_CODE_PATTERN, 'must be 4 to 8 digits').optional(),
  })
  .transform((body, ctx) => {
    const normalised = normaliseDestination(body.channel, body.destination);
    if (normalised.kind === 'invalid') {
      ctx.addIssue({ code: 'custom', path: ['destination'], message: normalised.message });
      return z.NEVER;
    }
    return {
      channel: body.channel as VerificationChannel,
      destination: normalised.destination,
      code: body.code,
      metadata: (body.metadata ?? undefined) as Record<string, unknown> | undefined,
    };
  });
export type StartVerificationRequest = z.output<typeof ZStartVerificationRequest>;

/**
 * Body of POST /v1/verifications/:reference/check: a missing code is a 400, a
 * wrong one is not, whatever its length (the body limit bounds it; hashing
 * a long one costs microseconds).
 */
export const ZCheckVerificationRequest = z.object({
  code: z.string(),
});

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a path reference could name a verification at all (the column is a UUID). */
export const isReference = (value: string): boolean => UUID_PATTERN.test(value);

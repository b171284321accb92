import { randomUUID } from 'node:crypto';
import { eventData } from './verification-reads';

/** The verification events, by the status each leaves the verification in. */
export type VerificationEventStatus = 'verified' | 'failed' | 'expired';

/**
 * A sample `data` of verification.verified, .failed or .expired, for the
 * webhook trigger test helper: an SMS verification with a fresh reference
 * that names no row, as eventData renders the real one (destination masked;
 * a failed one ran out of checks on a wrong code).
 */
export function sampleVerificationEventData(status: VerificationEventStatus, now = new Date()): ReturnType<typeof eventData> {
  const row = {
    reference: randomUUID(),
    channel: 'sms',
    destination: '+2348012345678',
    status,
    attempts: status === 'verified' ? 1 : status === 'failed' ? 5 : 0,
    verifiedAt: status === 'verified' ? now : null,
  };
  return eventData(row, status === 'failed' ? 'invalid_code' : undefined);
}

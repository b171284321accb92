import type { AnyRouteSpec } from '../../http/route-registry';
import { ZCheckOutcome, ZCheckVerificationBody, ZReferenceParams, ZStartVerificationBody, ZStartedVerification, ZVerificationRecord } from './schemas';

/** One-time codes under /v1, with an API key: keyed by their operationId, in the order they are mounted. */
export const verificationSpecs = {
  startVerification: {
    method: 'post',
    path: '/verifications',
    operationId: 'startVerification',
    summary: 'Send a one-time code to a phone number or email address',
    description:
      'Phone numbers (sms, voice, whatsapp) are normalised to E.164 (Nigerian numbers only); emails are lowercased. A supplied `code` bypasses generation and must never come from an untrusted client. sms and voice starts pass the fraud guard first (VERIFY_FRAUD_GUARD): a destination prefix with many starts and few verified checks in the last hour may be refused with 429 `details.reason` `fraud_guard`.',
    tag: 'Verification',
    auth: { kind: 'api_key', scope: 'verification:write' },
    request: { body: ZStartVerificationBody },
    responses: {
      201: { description: 'The code was sent', data: ZStartedVerification },
      400: { description: 'invalid_request: invalid destination or field, or `Could not deliver the code: …` (details.reference names the failed row)' },
      429: {
        description:
          'rate_limited: request budget, a per-destination/per-business verification limit, or the fraud guard (details.reason `destination`, `business` or `fraud_guard`, with retry_after_seconds)',
      },
      503: { description: 'provider_error: code delivery is unavailable right now (details.reference)' },
    },
  },
  checkVerification: {
    method: 'post',
    path: '/verifications/:reference/check',
    operationId: 'checkVerification',
    summary: 'Check a code',
    description: 'Always 201 with `data.status`: a wrong, expired or unknown code is never an HTTP error. Safe to retry once verified.',
    tag: 'Verification',
    auth: { kind: 'api_key', scope: 'verification:write' },
    request: { params: ZReferenceParams, body: ZCheckVerificationBody },
    responses: { 201: { description: 'The outcome of the check', data: ZCheckOutcome } },
  },
  getVerification: {
    method: 'get',
    path: '/verifications/:reference',
    operationId: 'getVerification',
    summary: 'Read a verification',
    description: 'A pure read: a stale pending row stays pending until a check is made.',
    tag: 'Verification',
    auth: { kind: 'api_key', scope: 'read' },
    request: { params: ZReferenceParams },
    responses: {
      200: { description: 'The verification record (metadata and code are never returned)', data: ZVerificationRecord },
      404: { description: 'not_found: no verification with this reference in this workspace' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;

import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZPageMeta } from '../../openapi/schemas';
import {
  ZCheckOutcome,
  ZCheckVerificationBody,
  ZClearGuardRequest,
  ZDashboardVerification,
  ZGuardedPrefix,
  ZReferenceParams,
  ZStartVerificationBody,
  ZStartedVerification,
  ZVerificationGuard,
  ZVerificationRecord,
  ZVerificationsQuery,
} from './schemas';

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

const auth = { kind: 'session' } as const;
const tag = 'Verification (dashboard)';

/**
 * The verifications of the signed-in workspace (the side its Cowrie-Mode
 * chose) for the dashboard, as GET /v1/verifications/:reference shows them
 * (destinations masked, never a code), and the fraud guard: keyed by their
 * operationId, in the order they are mounted.
 */
export const verificationDashboardSpecs = {
  listSessionVerifications: {
    method: 'get',
    path: '/verifications',
    operationId: 'listSessionVerifications',
    summary: "The signed-in workspace's verifications, newest first",
    description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
    tag,
    auth,
    request: { query: ZVerificationsQuery },
    responses: { 200: { description: 'A page of verifications', data: z.array(ZDashboardVerification), meta: ZPageMeta } },
  },
  // Not under /verifications/: a path there is read as a reference.
  getVerificationGuard: {
    method: 'get',
    path: '/verification-guard',
    operationId: 'getVerificationGuard',
    summary: "Conversion by channel over the last hour, and the fraud guard's prefixes",
    description:
      'Conversion (verified ÷ started) of the last hour by channel, from the verifications; and the destination prefixes the fraud guard counted in its sliding hour (sms and voice), blocking ones first.',
    tag,
    auth,
    responses: { 200: { description: 'The guard and conversion', data: ZVerificationGuard } },
  },
  clearVerificationGuardPrefix: {
    method: 'post',
    path: '/verification-guard/clear',
    operationId: 'clearVerificationGuardPrefix',
    summary: "Clear a prefix's fraud-guard counts (owners)",
    description:
      "Drops the prefix's starts and verified checks of the hour, which lifts a block: it is judged again from its next starts. Recorded in the audit trail (`verification.guard_cleared`).",
    tag,
    auth: { kind: 'session', role: 'owner' },
    request: { body: ZClearGuardRequest },
    responses: {
      200: { description: 'What the prefix held before it was cleared', data: ZGuardedPrefix },
      400: { description: 'invalid_request: not a prefix (`+234` and four digits)' },
      404: { description: 'not_found: the guard holds nothing for this prefix' },
    },
  },
  getSessionVerification: {
    method: 'get',
    path: '/verifications/:reference',
    operationId: 'getSessionVerification',
    summary: 'One verification of the signed-in workspace',
    tag,
    auth,
    request: { params: ZReferenceParams },
    responses: {
      200: { description: 'The verification record with its delivery report (metadata and code are never returned)', data: ZDashboardVerification },
      404: { description: 'not_found: no verification with this reference in this workspace' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;

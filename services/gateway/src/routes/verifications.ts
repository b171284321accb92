import type { Response } from 'express';
import { z } from 'zod';
import { AppError, enqueueAndWait } from '@cowrie/core';
import {
  ZCheckVerificationRequest,
  channelAvailable,
  destinationPrefix,
  guardVerificationStart,
  ZStartVerificationRequest,
  checkVerification,
  createVerification,
  findVerification,
  findVerificationById,
  hitVerificationLimits,
  markDeliveryFailed,
  toStartedVerification,
  toVerificationRecord,
  type CheckOutcome,
  type StartedVerification,
  type VerificationRecord,
  verificationJobId,
  verificationsQueue,
} from '@cowrie/verification';
import { ZVerificationChannel as ZVerificationChannelData } from '@cowrie/events';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { apiKeyOf, sendData } from '../http/respond';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';

/** The webhook events' catalog declares it: the verification events carry one. */
export const ZVerificationChannel = named('VerificationChannel', ZVerificationChannelData);
export const ZVerificationStatus = named('VerificationStatus', z.enum(['pending', 'verified', 'failed', 'expired']));
const ZReference = z.string().meta({ description: 'The verification reference (a UUID)' });

const ZStartedVerification = named(
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

const ZCheckOutcome = named(
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

const ZReferenceParams = z.object({ reference: ZReference });

/** Verification-limit 429s carry no X-RateLimit-* headers, although the budget middleware set them. */
function dropRateLimitHeaders(res: Response) {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) res.removeHeader(name);
}

export function registerVerificationRoutes(v1: RouteMount, deps: GatewayDeps) {
  const { config, db, redis, queues } = deps;

  v1.route(
    {
      method: 'post',
      path: '/verifications',
      operationId: 'startVerification',
      summary: 'Send a one-time code to a phone number or email address',
      description:
        'Phone numbers (sms, voice, whatsapp) are normalised to E.164 (Nigerian numbers only); emails are lowercased. A supplied `code` bypasses generation and must never come from an untrusted client. sms and voice starts pass the fraud guard first (VERIFY_FRAUD_GUARD): a destination prefix with many starts and few verified checks in the last hour may be refused with 429 `details.reason` `fraud_guard`.',
      tag: 'Verification',
      auth: { kind: 'api_key', scope: 'verification:write' },
      request: { body: named('StartVerificationRequest', ZStartVerificationRequest) },
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
    async ({ body }, req, res) => {
      const { workspaceId, workspaceUid, mode } = apiKeyOf(req);
      if (!channelAvailable(config, body.channel, mode)) {
        throw new AppError('invalid_request', `channel ${body.channel} is not available on this deployment`, { details: { field: 'channel' } });
      }
      const prefix = destinationPrefix(body.destination) ?? 'none';
      const counted = { channel: body.channel, prefix };

      // The fraud guard first: a start it refuses is counted nowhere, and never stored by the idempotency layer (a 429).
      const guard = await guardVerificationStart(redis, config, { workspaceUid, channel: body.channel, destination: body.destination });
      if (guard.kind === 'refused') {
        deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'fraud_guard' });
        deps.metrics.verificationConversion.inc({ ...counted, outcome: 'refused' });
        req.log.warn({ channel: body.channel, prefix: guard.prefix }, 'verification refused by the fraud guard');
        dropRateLimitHeaders(res);
        throw new AppError('rate_limited', 'Too many unverified codes to this destination prefix; retry later', {
          details: { reason: 'fraud_guard', retry_after_seconds: guard.retryAfterSeconds, prefix: guard.prefix },
          headers: { 'Retry-After': String(guard.retryAfterSeconds) },
        });
      }
      if (guard.kind === 'counted' && guard.blocking) {
        deps.metrics.verificationConversion.inc({ ...counted, outcome: 'would_refuse' });
        req.log.warn(
          { channel: body.channel, prefix: guard.prefix, mode: config.VERIFY_FRAUD_GUARD },
          'fraud guard: prefix has low conversion (monitor: not refused)',
        );
      }

      const limit = await hitVerificationLimits(redis, config, { workspaceUid, destination: body.destination });
      if (limit.kind === 'refused') {
        if (guard.kind === 'counted') await guard.release();
        deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'rate_limited' });
        dropRateLimitHeaders(res);
        throw new AppError('rate_limited', `Too many verifications for this ${limit.reason === 'destination' ? 'destination' : 'business'}; retry later`, {
          details: { reason: limit.reason, retry_after_seconds: limit.retryAfterSeconds },
          headers: { 'Retry-After': String(limit.retryAfterSeconds) },
        });
      }

      deps.metrics.verificationConversion.inc({ ...counted, outcome: 'started' });
      const { verification, sealedCode } = await createVerification(deps.sql, config, { workspaceId, mode, ...body });
      const reference = verification.reference;
      req.log.info({ reference, channel: verification.channel }, 'verification started');

      // Queue the delivery and wait a bounded time for the dispatcher's outcome
      // (docs/design.md: synchronous answers). Sent: the row is still as created.
      // Anything else: the row in Postgres is the answer.
      const run = await enqueueAndWait(
        queues.verifications,
        verificationsQueue,
        'verification.deliver',
        { verificationId: verification.id, sealedCode },
        { jobId: verificationJobId(verification), waitMs: config.VERIFY_SYNC_WAIT_MS },
      );
      if (run.kind === 'not_queued') {
        req.log.error({ err: { message: run.error.message }, reference }, 'could not queue code delivery');
        await markDeliveryFailed(deps.sql, verification.id, 'the delivery queue is unavailable');
        throw new AppError('provider_error', 'Code delivery is unavailable right now; try again', { status: 503, details: { reference } });
      }
      const delivery = run.kind === 'completed' ? run.value : undefined;
      if (run.kind !== 'completed' && config.VERIFY_SYNC_WAIT_MS > 0) {
        const state = run.kind === 'failed' ? 'failed' : await run.job.getState().catch(() => 'unknown');
        if (state === 'failed') {
          // The handler itself crashed (not a provider refusal, which it records):
          // the code was not delivered and the job is not retried.
          req.log.warn({ reference, err: { message: run.kind === 'failed' ? run.reason : 'failed' } }, 'code delivery job failed');
          await markDeliveryFailed(deps.sql, verification.id, 'the delivery worker failed');
        } else {
          req.log.warn({ reference, state }, 'code delivery still running; answering from the row');
        }
      }

      const row = delivery?.kind === 'sent' ? verification : ((await findVerificationById(deps.sql, verification.id)) ?? verification);
      if (row.status === 'failed' && row.deliveryError) {
        deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'delivery_failed' });
        throw new AppError('invalid_request', `Could not deliver the code: ${row.deliveryError}`, { details: { reference } });
      }
      deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'started' });
      sendData(req, res, 201, toStartedVerification(row));
    },
  );

  v1.route(
    {
      method: 'post',
      path: '/verifications/:reference/check',
      operationId: 'checkVerification',
      summary: 'Check a code',
      description: 'Always 201 with `data.status`: a wrong, expired or unknown code is never an HTTP error. Safe to retry once verified.',
      tag: 'Verification',
      auth: { kind: 'api_key', scope: 'verification:write' },
      request: { params: ZReferenceParams, body: named('CheckVerificationRequest', ZCheckVerificationRequest) },
      responses: { 201: { description: 'The outcome of the check', data: ZCheckOutcome } },
    },
    async ({ params, body }, req, res) => {
      const { workspaceId, workspaceUid } = apiKeyOf(req);
      const outcome = await checkVerification(
        {
          sql: deps.sql,
          redis,
          keyPrefix: config.REDIS_KEY_PREFIX,
          fraudGuard: { config, workspaceUid },
          onVerified: (row) =>
            deps.metrics.verificationConversion.inc({ channel: row.channel, prefix: destinationPrefix(row.destination) ?? 'none', outcome: 'verified' }),
        },
        { workspaceId, reference: params.reference, code: body.code },
      );
      deps.metrics.verificationOutcomes.inc({ stage: 'check', outcome: outcome.status === 'verified' ? 'verified' : outcome.reason });
      sendData(req, res, 201, outcome);
    },
  );

  v1.route(
    {
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
    async ({ params }, req, res) => {
      const { workspaceId } = apiKeyOf(req);
      const row = await findVerification(db, workspaceId, params.reference);
      if (!row) throw new AppError('not_found', 'Verification not found');
      sendData(req, res, 200, toVerificationRecord(row));
    },
  );
}

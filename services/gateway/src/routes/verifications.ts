import type { Response, Router } from 'express';
import { AppError, enqueue, jobIdFor, verificationsQueue } from '@cowrie/core';
import {
  ZCheckVerificationRequest,
  ZStartVerificationRequest,
  checkVerification,
  createVerification,
  findVerification,
  hitVerificationLimits,
  markDeliveryFailed,
  toStartedVerification,
  toVerificationRecord,
} from '@cowrie/verification';
import type { GatewayDeps } from '../deps';
import { requireScope } from '../http/api-auth';
import { apiKeyOf, sendData } from '../http/respond';
import { parseBody } from '../http/validate';

/** Verification-limit 429s carry no X-RateLimit-* headers (interface: Limits), although the budget middleware set them. */
function dropRateLimitHeaders(res: Response) {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) res.removeHeader(name);
}

export function registerVerificationRoutes(v1: Router, deps: GatewayDeps) {
  const { config, db, redis, queues } = deps;

  v1.post('/verifications', requireScope('verification:write'), async (req, res) => {
    const { workspaceId } = apiKeyOf(req);
    const body = parseBody(ZStartVerificationRequest, req);

    const limit = await hitVerificationLimits(redis, config, { workspaceId, destination: body.destination });
    if (!limit.allowed) {
      dropRateLimitHeaders(res);
      throw new AppError('rate_limited', `Too many verifications for this ${limit.reason === 'destination' ? 'destination' : 'business'}; retry later`, {
        details: { reason: limit.reason, retry_after_seconds: limit.retryAfterSeconds },
        headers: { 'Retry-After': String(limit.retryAfterSeconds) },
      });
    }

    const { verification, sealedCode } = await createVerification(db, config, { workspaceId, ...body });
    const reference = verification.reference;
    req.log.info({ reference, channel: verification.channel }, 'verification started');

    let job;
    try {
      job = await enqueue(queues.verifications, verificationsQueue, 'verification.deliver', { verificationId: verification.id, sealedCode }, {
        jobId: jobIdFor('verification', verification.id),
      });
    } catch (err) {
      req.log.error({ err: { message: (err as Error).message }, reference }, 'could not queue code delivery');
      await markDeliveryFailed(db, verification.id, 'the delivery queue is unavailable');
      throw new AppError('provider_error', 'Code delivery is unavailable right now; try again', { status: 503, details: { reference } });
    }

    // Wait a bounded time for the dispatcher's outcome; whatever happens, the
    // row in Postgres is the answer (DESIGN.md: synchronous answers).
    if (config.VERIFY_SYNC_WAIT_MS > 0) {
      try {
        await job.waitUntilFinished(queues.verificationEvents, config.VERIFY_SYNC_WAIT_MS);
      } catch (err) {
        const state = await job.getState().catch(() => 'unknown');
        if (state === 'failed') {
          // The handler itself crashed (not a provider refusal, which it records):
          // the code was not delivered and the job is not retried.
          req.log.warn({ reference, err: { message: (err as Error).message } }, 'code delivery job failed');
          await markDeliveryFailed(db, verification.id, 'the delivery worker failed');
        } else {
          req.log.warn({ reference, state }, 'code delivery still running; answering from the row');
        }
      }
    }

    const row = (await db.verification.findUnique({ where: { id: verification.id } })) ?? verification;
    if (row.status === 'failed' && row.deliveryError) {
      throw new AppError('invalid_request', `Could not deliver the code: ${row.deliveryError}`, { details: { reference } });
    }
    sendData(req, res, 201, toStartedVerification(row));
  });

  v1.post('/verifications/:reference/check', requireScope('verification:write'), async (req, res) => {
    const { workspaceId } = apiKeyOf(req);
    const { code } = parseBody(ZCheckVerificationRequest, req);
    const outcome = await checkVerification(
      { db, redis, keyPrefix: config.REDIS_KEY_PREFIX },
      { workspaceId, reference: String(req.params.reference), code },
    );
    sendData(req, res, 201, outcome);
  });

  v1.get('/verifications/:reference', requireScope('read'), async (req, res) => {
    const { workspaceId } = apiKeyOf(req);
    const row = await findVerification(db, workspaceId, String(req.params.reference));
    if (!row) throw new AppError('not_found', 'Verification not found');
    sendData(req, res, 200, toVerificationRecord(row));
  });
}

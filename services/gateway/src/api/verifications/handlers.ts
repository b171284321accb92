import type { Response } from 'express';
import { AppError } from '@cowrie/core';
import {
  channelAvailable,
  checkVerification,
  destinationPrefix,
  findVerification,
  guardReportLimiter,
  guardVerificationStart,
  hitVerificationLimits,
  startVerification,
  renderStartedVerification,
  renderVerificationRecord,
} from '@cowrie/verification';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { apiKeyOf, sendData } from '../../http/respond';
import type { verificationSpecs } from './specs';

/** Verification-limit 429s carry no X-RateLimit-* headers, although the budget middleware set them. */
function dropRateLimitHeaders(res: Response) {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) res.removeHeader(name);
}

/** One handler per verification route (verificationSpecs): the fraud guard and limits, then one @cowrie/verification call, its outcome mapped to an answer. */
export function createVerificationHandlers(deps: GatewayDeps): HandlersOf<typeof verificationSpecs> {
  const { config, db, redis, queues } = deps;
  const reportGuardedPrefix = guardReportLimiter();
  return {
    startVerification: async ({ body }, req, res) => {
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
        const due = reportGuardedPrefix(workspaceUid, guard.prefix);
        if (due.report) {
          req.log.warn(
            { channel: body.channel, prefix: guard.prefix, mode: config.VERIFY_FRAUD_GUARD, unreportedSinceLast: due.unreported },
            'fraud guard: prefix has low conversion (monitor: not refused; logged once a minute per prefix)',
          );
        }
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
      const started = await startVerification({ sql: deps.sql, config, channel: queues.verifications, log: req.log }, { workspaceId, mode, ...body });
      switch (started.kind) {
        case 'not_queued':
          throw new AppError('provider_error', 'Code delivery is unavailable right now; try again', { status: 503, details: { reference: started.reference } });
        case 'delivery_failed':
          deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'delivery_failed' });
          throw new AppError('invalid_request', `Could not deliver the code: ${started.error}`, { details: { reference: started.reference } });
        case 'started':
          deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'started' });
          sendData(req, res, 201, renderStartedVerification(started.verification));
      }
    },
    checkVerification: async ({ params, body }, req, res) => {
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
    getVerification: async ({ params }, req, res) => {
      const { workspaceId } = apiKeyOf(req);
      const row = await findVerification(db, workspaceId, params.reference);
      if (!row) throw new AppError('not_found', 'Verification not found');
      sendData(req, res, 200, renderVerificationRecord(row));
    },
  };
}

import { AppError } from '@cowrie/core';
import { workspaceUid } from '@cowrie/accounts';
import {
  channelAvailable,
  checkVerification,
  clearGuardedPrefix,
  conversionByChannel,
  destinationPrefix,
  findVerification,
  guardReportLimiter,
  guardAndLimitVerificationStart,
  listGuardedPrefixes,
  listVerifications,
  parseGuardPrefix,
  startVerification,
  renderDashboardVerificationRecord,
  renderStartedVerification,
  renderVerificationRecord,
} from '@cowrie/verification';
import type { GatewayDeps } from '../../deps';
import { dropRateLimitHeaders } from '../../http/api-auth';
import { recordAuditAfter } from '../../http/audit';
import type { HandlersOf } from '../../http/route-registry';
import { apiKeyOf, sendData, sendPage, sessionOf } from '../../http/respond';
import type { verificationDashboardSpecs, verificationSpecs } from './specs';

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
      // Then the limits: a start they refuse is taken back from the guard. One Redis command for both.
      const admission = await guardAndLimitVerificationStart(redis, config, { workspaceUid, channel: body.channel, destination: body.destination });
      if (admission.kind === 'guard_refused') {
        deps.metrics.verificationOutcomes.inc({ stage: 'start', outcome: 'fraud_guard' });
        deps.metrics.verificationConversion.inc({ ...counted, outcome: 'refused' });
        req.log.warn({ channel: body.channel, prefix: admission.prefix }, 'verification refused by the fraud guard');
        dropRateLimitHeaders(res);
        throw new AppError('rate_limited', 'Too many unverified codes to this destination prefix; retry later', {
          details: { reason: 'fraud_guard', retry_after_seconds: admission.retryAfterSeconds, prefix: admission.prefix },
          headers: { 'Retry-After': String(admission.retryAfterSeconds) },
        });
      }
      const { guarded, limit } = admission;
      if (guarded?.blocking) {
        deps.metrics.verificationConversion.inc({ ...counted, outcome: 'would_refuse' });
        const due = reportGuardedPrefix(workspaceUid, guarded.prefix);
        if (due.report) {
          req.log.warn(
            { channel: body.channel, prefix: guarded.prefix, mode: config.VERIFY_FRAUD_GUARD, unreportedSinceLast: due.unreported },
            'fraud guard: prefix has low conversion (monitor: not refused; logged once a minute per prefix)',
          );
        }
      }

      if (limit.kind === 'refused') {
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

const GUARD_WINDOW_SECONDS = 3600;

/** The workspace's id that never repeats (the fraud guard's counters are keyed by it, as the API key's). */
async function sessionWorkspaceUid(deps: GatewayDeps, workspaceId: number): Promise<string> {
  const workspace = await deps.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { createdAt: true } });
  return workspaceUid(workspaceId, workspace.createdAt);
}

/** One handler per dashboard verification route (verificationDashboardSpecs): the session's workspace, one @cowrie/verification call each. */
export function createVerificationDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof verificationDashboardSpecs> {
  return {
    async listSessionVerifications({ query }, req, res) {
      sendPage(req, res, await listVerifications(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },

    async getVerificationGuard(_input, req, res) {
      const { workspaceId } = sessionOf(req);
      const now = Date.now();
      const [conversion, prefixes] = await Promise.all([
        conversionByChannel(deps.db, workspaceId, new Date(now - GUARD_WINDOW_SECONDS * 1000)),
        sessionWorkspaceUid(deps, workspaceId).then((uid) => listGuardedPrefixes(deps.redis, deps.config, uid, now)),
      ]);
      sendData(req, res, 200, {
        mode: deps.config.VERIFY_FRAUD_GUARD,
        min_starts: deps.config.VERIFY_FRAUD_GUARD_MIN_STARTS,
        min_conversion: deps.config.VERIFY_FRAUD_GUARD_MIN_CONVERSION,
        window_seconds: GUARD_WINDOW_SECONDS,
        conversion_by_channel: conversion,
        prefixes,
      });
    },

    async clearVerificationGuardPrefix({ body }, req, res) {
      const prefix = parseGuardPrefix(body.prefix);
      if (!prefix) throw new AppError('invalid_request', 'prefix must be +234 followed by four digits, such as +234803 1', { details: { field: 'prefix' } });
      const { workspaceId } = sessionOf(req);
      const held = await clearGuardedPrefix(deps.redis, deps.config, { workspaceUid: await sessionWorkspaceUid(deps, workspaceId), prefix });
      if (!held) throw new AppError('not_found', 'The fraud guard holds nothing for this prefix');
      req.log.info({ prefix, starts: held.starts, blocking: held.blocking }, 'fraud guard prefix cleared');
      await recordAuditAfter(deps.db, req, {
        action: 'verification.guard_cleared',
        objectId: workspaceId,
        details: { prefix, starts: held.starts, verified: held.verified, blocking: held.blocking },
      });
      sendData(req, res, 200, held);
    },

    async getSessionVerification({ params }, req, res) {
      const row = await findVerification(deps.db, sessionOf(req).workspaceId, params.reference);
      if (!row) throw new AppError('not_found', 'Verification not found');
      sendData(req, res, 200, renderDashboardVerificationRecord(row));
    },
  };
}

import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { workspaceUid } from '@cowrie/accounts';
import {
  clearGuardedPrefix,
  conversionByChannel,
  findVerification,
  listGuardedPrefixes,
  listVerifications,
  parseGuardPrefix,
  renderDashboardVerificationRecord,
  type DashboardVerificationRecord,
} from '@cowrie/verification';
import type { GatewayDeps } from '../deps';
import { recordAuditAfter } from '../http/audit';
import type { RouteMount } from '../http/route-registry';
import { sendData, sendPage, sessionOf } from '../http/respond';
import { ZPageMeta, ZTimestamp, named, pageQueryFields, responseOf } from '../openapi/schemas';
import { ZVerificationChannel, ZVerificationRecord, ZVerificationStatus } from '../api/verifications/schemas';

const ZDashboardVerification = named(
  'DashboardVerification',
  responseOf<DashboardVerificationRecord>()(
    ZVerificationRecord.extend({
      delivery_status: z
        .enum(['delivered', 'undelivered'])
        .nullable()
        .meta({ description: "What the provider's delivery report said of the handset (null: no report yet, or a provider without reports)" }),
      delivery_reported_at: ZTimestamp.nullable().meta({ description: 'When the report says that happened' }),
    }),
  ),
);

const ZVerificationsQuery = z.object({
  status: ZVerificationStatus.optional().meta({ description: 'Only verifications with this status' }),
  channel: ZVerificationChannel.optional().meta({ description: 'Only verifications sent on this channel' }),
  ...pageQueryFields,
});

const ZGuardedPrefix = z.object({
  prefix: z.string().meta({ description: 'The country code and the first four national digits, e.g. `+234803 1`' }),
  starts: z.number().int(),
  verified: z.number().int(),
  conversion: z.number().nullable(),
  blocking: z.boolean().meta({ description: 'New sms and voice starts to it are refused (block) or would be (monitor)' }),
  retry_after_seconds: z.number().int().nullable(),
});

const ZVerificationGuard = named(
  'VerificationGuard',
  z.object({
    mode: z.enum(['off', 'monitor', 'block']),
    min_starts: z.number().int(),
    min_conversion: z.number(),
    window_seconds: z.number().int(),
    conversion_by_channel: z.array(
      z.object({ channel: ZVerificationChannel, started: z.number().int(), verified: z.number().int(), conversion: z.number().nullable() }),
    ),
    prefixes: z.array(ZGuardedPrefix),
  }),
);

const ZClearGuardRequest = named(
  'ClearVerificationGuardRequest',
  z.object({ prefix: z.string().max(20).meta({ description: 'The prefix to clear, as the guard lists it (`+234803 1`)' }) }),
);

const GUARD_WINDOW_SECONDS = 3600;

/** The workspace's id that never repeats (the fraud guard's counters are keyed by it, as the API key's). */
async function sessionWorkspaceUid(deps: GatewayDeps, workspaceId: number): Promise<string> {
  const workspace = await deps.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { createdAt: true } });
  return workspaceUid(workspaceId, workspace.createdAt);
}

/**
 * The verifications of the signed-in workspace (the side its Cowrie-Mode
 * chose) for the dashboard: as GET /v1/verifications/:reference shows them,
 * destinations masked, never a code.
 */
export function registerDashboardVerificationRoutes(app: RouteMount, deps: GatewayDeps) {
  const auth = { kind: 'session' } as const;
  const tag = 'Verification (dashboard)';

  app.route(
    {
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
    async ({ query }, req, res) => {
      sendPage(req, res, await listVerifications(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );

  // Not under /verifications/: a path there is read as a reference.
  app.route(
    {
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
    async (_input, req, res) => {
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
  );

  app.route(
    {
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
    async ({ body }, req, res) => {
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
  );

  app.route(
    {
      method: 'get',
      path: '/verifications/:reference',
      operationId: 'getSessionVerification',
      summary: 'One verification of the signed-in workspace',
      tag,
      auth,
      request: { params: z.object({ reference: z.string().meta({ description: 'The verification reference (a UUID)' }) }) },
      responses: {
        200: { description: 'The verification record with its delivery report (metadata and code are never returned)', data: ZDashboardVerification },
        404: { description: 'not_found: no verification with this reference in this workspace' },
      },
    },
    async ({ params }, req, res) => {
      const row = await findVerification(deps.db, sessionOf(req).workspaceId, params.reference);
      if (!row) throw new AppError('not_found', 'Verification not found');
      sendData(req, res, 200, renderDashboardVerificationRecord(row));
    },
  );
}

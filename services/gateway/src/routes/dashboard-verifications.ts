import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { findVerification, listVerifications, toVerificationRecord } from '@cowrie/verification';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sendPage, sessionOf } from '../http/respond';
import { ZPageMeta, pageQueryFields } from '../openapi/schemas';
import { ZVerificationChannel, ZVerificationRecord, ZVerificationStatus } from './verifications';

const ZVerificationsQuery = z.object({
  status: ZVerificationStatus.optional().meta({ description: 'Only verifications with this status' }),
  channel: ZVerificationChannel.optional().meta({ description: 'Only verifications sent on this channel' }),
  ...pageQueryFields,
});

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
      responses: { 200: { description: 'A page of verifications', data: z.array(ZVerificationRecord), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await listVerifications(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
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
        200: { description: 'The verification record (metadata and code are never returned)', data: ZVerificationRecord },
        404: { description: 'not_found: no verification with this reference in this workspace' },
      },
    },
    async ({ params }, req, res) => {
      const row = await findVerification(deps.db, sessionOf(req).workspaceId, params.reference);
      if (!row) throw new AppError('not_found', 'Verification not found');
      sendData(req, res, 200, toVerificationRecord(row));
    },
  );
}

import type { Request } from 'express';
import { z } from 'zod';
import { AppError, formatAmount, parsePathId } from '@cowrie/core';
import {
  PAYOUT_REQUEST_STATUSES,
  ZApprovalThresholds,
  ZRejectPayoutRequest,
  approvePayoutRequest,
  listPayoutRequests,
  readPayoutRequest,
  readWorkspaceSettings,
  rejectPayoutRequest,
  replaceApprovalThresholds,
  type PayoutRequestView,
  type WorkspaceSettingsView,
} from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sendPage, sessionOf } from '../http/respond';
import { recordAudit, recordAuditAfter } from '../http/audit';
import { ZAmount, ZPageMeta, ZTimestamp, named, pageQueryFields, responseOf } from '../openapi/schemas';
import type { createPayoutHandlers } from './payouts';

const ZUserRef = z.object({ user_id: z.number().int(), email: z.string() });

/** A payout request: the 202 of a dashboard payout above its threshold, and the rows of /payout-requests. */
export const ZPayoutRequest = named(
  'PayoutRequest',
  responseOf<PayoutRequestView>()(
    z.object({
      id: z.number().int(),
      kind: z.enum(['transfer', 'withdrawal']),
      status: z.enum(PAYOUT_REQUEST_STATUSES).meta({
        description:
          'pending (waiting), approved (its payout was sent: see `transaction`), rejected, or expired (24 hours passed while pending; it can no longer be approved)',
      }),
      currency: z.string(),
      amount: ZAmount,
      counterparty_name: z.string().nullable(),
      counterparty_account: z.string(),
      counterparty_bank: z.string().nullable(),
      beneficiary_id: z.number().int().nullable().meta({ description: 'The beneficiary of a withdrawal' }),
      narration: z.string().nullable(),
      requested_by: ZUserRef.meta({ description: 'Who asked for the payout' }),
      decided_by: ZUserRef.nullable().meta({ description: 'Who approved or rejected it' }),
      decided_at: ZTimestamp.nullable(),
      rejection_reason: z.string().nullable(),
      transaction: z
        .object({ id: z.number().int(), reference: z.string(), status: z.string() })
        .nullable()
        .meta({ description: 'The payout sent on approval (a ledger transaction), as it stands now' }),
      expires_at: ZTimestamp.meta({ description: 'Until when it can be approved (24 hours after it was made)' }),
      created_at: ZTimestamp,
    }),
  ),
);

const ZWorkspaceSettings = named(
  'WorkspaceSettings',
  responseOf<WorkspaceSettingsView>()(
    z.object({
      payout_approval_thresholds: z
        .record(z.string(), ZAmount)
        .meta({ description: 'Currency → the amount above which a dashboard payout waits for an approval; {} when off' }),
    }),
  ),
);

const ZSettingsBody = named('UpdateWorkspaceSettingsRequest', z.object({ payout_approval_thresholds: ZApprovalThresholds }));
const ZRequestParams = z.object({ id: z.string().meta({ description: 'Payout request id' }) });
const ZListQuery = z.object({
  status: z.enum(PAYOUT_REQUEST_STATUSES).optional().meta({ description: 'Only requests with this status' }),
  ...pageQueryFields,
});
const ZRejectBody = named('RejectPayoutRequest', ZRejectPayoutRequest);

const requestNotFound = () => new AppError('not_found', 'Payout request not found');
const actorOf = (req: Request) => {
  const session = sessionOf(req);
  return { userId: session.userId, email: session.email };
};

/**
 * Payout approvals of the dashboard (maker-checker): the side's thresholds
 * (an owner changes them, with a step-up: lowering one weakens a money
 * control), and the payout requests the payout routes make above them, with
 * their approval and rejection. Each acts on the side Cowrie-Mode chooses.
 */
export function registerPayoutRequestRoutes(app: RouteMount, deps: GatewayDeps, handlers: ReturnType<ReturnType<typeof createPayoutHandlers>>) {
  const tag = 'Payout approvals (dashboard)';
  const notDecidable = {
    400: {
      description:
        'invalid_request: `details.reason` `payout_request_expired` (24 hours passed) or `payout_request_decided` (approved or rejected already; `details.status`)',
    },
  };

  app.route(
    {
      method: 'get',
      path: '/workspace/settings',
      operationId: 'getWorkspaceSettings',
      summary: "The settings of the session's side of the workspace",
      tag,
      auth: { kind: 'session' },
      responses: { 200: { description: 'The settings', data: ZWorkspaceSettings } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await readWorkspaceSettings(deps.db, sessionOf(req).workspaceId));
    },
  );

  app.route(
    {
      method: 'put',
      path: '/workspace/settings',
      operationId: 'updateWorkspaceSettings',
      summary: "Set the payout approval thresholds of the session's side",
      description:
        'Owners only, with a step-up. `payout_approval_thresholds` replaces the whole set (`{}` turns approvals off). Requests already made keep waiting for their decision. Recorded in the audit trail (`workspace.settings_changed`, before and after).',
      tag,
      auth: { kind: 'session', role: 'owner', stepUp: true },
      request: { body: ZSettingsBody },
      responses: { 200: { description: 'The settings as they are now', data: ZWorkspaceSettings } },
    },
    async ({ body }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const settings = await deps.db.$transaction(async (tx) => {
        const { before, after } = await replaceApprovalThresholds(tx, workspaceId, body.payout_approval_thresholds);
        await recordAudit(tx, req, {
          action: 'workspace.settings_changed',
          objectId: workspaceId,
          details: {
            settings: ['payout_approval_thresholds'],
            payout_approval_thresholds: { before: before.payout_approval_thresholds, after: after.payout_approval_thresholds },
          },
        });
        return after;
      });
      sendData(req, res, 200, settings);
    },
  );

  app.route(
    {
      method: 'get',
      path: '/payout-requests',
      operationId: 'listPayoutRequests',
      summary: 'Payout requests, newest first',
      description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
      tag,
      auth: { kind: 'session' },
      request: { query: ZListQuery },
      responses: { 200: { description: 'A page of payout requests', data: z.array(ZPayoutRequest), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await listPayoutRequests(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );

  app.route(
    {
      method: 'get',
      path: '/payout-requests/:id',
      operationId: 'getPayoutRequest',
      summary: 'A payout request',
      tag,
      auth: { kind: 'session' },
      request: { params: ZRequestParams },
      responses: { 200: { description: 'The payout request', data: ZPayoutRequest }, 404: { description: 'not_found: no such request on this side' } },
    },
    async ({ params }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, parsePathId(params.id, requestNotFound)));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/payout-requests/:id/approve',
      operationId: 'approvePayoutRequest',
      summary: 'Approve a payout request: its payout is sent',
      description:
        "An owner or admin other than its requester, with a step-up. The payout is sent as the requester asked for it, under the requester's Idempotency-Key, so it is sent once however often or concurrently it is approved; the balance is checked now (`Exceeds balance` leaves the request pending). Answers the request with its payout's status; a rail failure answers as the payout routes do, with `details.payout_request`.",
      tag,
      auth: { kind: 'session', role: 'team_admin', stepUp: true },
      idempotent: true,
      request: { params: ZRequestParams },
      responses: {
        200: { description: 'Approved; `transaction` is the payout as the rail left it', data: ZPayoutRequest },
        ...notDecidable,
        403: {
          description:
            'insufficient_scope: `details.reason` `own_payout_request` (its requester cannot approve it), or not an owner or admin, or step_up_required',
        },
        404: { description: "not_found: no such request on this side, or the payout's wallet or beneficiary is gone" },
        502: { description: 'provider_error: the rail failed or its outcome is unknown (as for a payout; `details.transaction`, `details.payout_request`)' },
        503: { description: 'provider_error: the rail is unavailable' },
        504: { description: 'provider_error: the rail timed out' },
      },
    },
    async ({ params }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const id = parsePathId(params.id, requestNotFound);
      const approval = await approvePayoutRequest(handlers.payoutDeps(req), { workspaceId, id, approver: actorOf(req) });
      const { request, payout } = approval;
      if (payout) {
        if (approval.approvedNow) {
          await recordAuditAfter(deps.db, req, {
            action: 'payout_request.approved',
            objectId: request.id,
            details: {
              currency: request.currency,
              amount: formatAmount(request.amount),
              requested_by: request.requestedByEmail,
              reference: payout.transaction.reference,
            },
          });
        }
        try {
          await handlers.run(req, payout, request.kind as 'transfer' | 'withdrawal');
        } catch (err) {
          if (err instanceof AppError && err.code === 'provider_error') {
            throw new AppError(err.code, err.message, { status: err.status, details: { ...err.details, payout_request: request.id } });
          }
          throw err;
        }
      }
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, id));
    },
  );

  app.route(
    {
      method: 'post',
      path: '/payout-requests/:id/reject',
      operationId: 'rejectPayoutRequest',
      summary: 'Reject a payout request: nothing is sent',
      description: 'An owner or admin; its requester may reject their own (withdrawing it). Recorded in the audit trail with the reason.',
      tag,
      auth: { kind: 'session', role: 'team_admin' },
      idempotent: true,
      request: { params: ZRequestParams, body: ZRejectBody },
      responses: {
        200: { description: 'Rejected', data: ZPayoutRequest },
        ...notDecidable,
        404: { description: 'not_found: no such request on this side' },
      },
    },
    async ({ params, body }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const id = parsePathId(params.id, requestNotFound);
      await deps.db.$transaction(async (tx) => {
        const rejected = await rejectPayoutRequest(tx, { workspaceId, id, rejecter: actorOf(req), reason: body.reason });
        await recordAudit(tx, req, {
          action: 'payout_request.rejected',
          objectId: rejected.id,
          details: {
            currency: rejected.currency,
            amount: formatAmount(rejected.amount),
            requested_by: rejected.requestedByEmail,
            reason: rejected.rejectionReason,
          },
        });
      });
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, id));
    },
  );
}

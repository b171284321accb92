import { z } from 'zod';
import { AppError, formatAmount, parsePathId } from '@cowrie/core';
import { payoutRequestFor, readPayoutRequest, removeBeneficiary, type PayoutOrder } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { recordAuditAfter } from '../http/audit';
import { named } from '../openapi/schemas';
import { payoutSpecs, type createPayoutHandlers } from './payouts';
import { ZPayoutRequest, registerPayoutRequestRoutes } from './payout-requests';
import { ZPayoutRailState } from '../api/health/schemas';
import { payoutRailStates } from '../api/health/handlers';

const ZBeneficiaryParams = z.object({ id: z.string().meta({ description: 'Beneficiary id' }) });
const beneficiaryNotFound = () => new AppError('not_found', 'Beneficiary not found');
const ZRemovedBeneficiary = named('RemovedBeneficiary', z.object({ id: z.number().int(), deleted: z.literal(true) }));

/**
 * Payouts, bank lookup and beneficiaries for the dashboard: the handlers of
 * the /v1 routes (createPayoutHandlers), acting for the session's workspace and
 * mode. A transfer or withdrawal from the dashboard must carry an
 * Idempotency-Key (the form makes one per confirmation), so a retried click
 * never sends money twice.
 */
export function registerDashboardPayoutRoutes(app: RouteMount, deps: GatewayDeps, handlersFor: ReturnType<typeof createPayoutHandlers>) {
  // A payout sent from the dashboard is in the audit trail, recorded once its row and hold have committed (before the rail is called).
  const handlers = handlersFor(
    (req) => sessionOf(req),
    (req, payout, kind) =>
      recordAuditAfter(deps.db, req, {
        action: 'payout.sent',
        objectId: payout.id,
        details: {
          kind,
          reference: payout.reference,
          currency: payout.currency,
          amount: formatAmount(payout.amount),
          counterparty_account: payout.counterpartyAccount,
          counterparty_bank: payout.counterpartyBank,
        },
      }),
  );
  const auth = { kind: 'session' } as const;
  // Money leaving the wallet: a guarded change (a sign-in or step-up within STEP_UP_SECONDS).
  const guarded = { kind: 'session', stepUp: true } as const;
  const tag = 'Payouts (dashboard)';
  const keyRequired = {
    400: { description: 'invalid_request: as for /v1, or the Idempotency-Key header is missing (a payout from the dashboard must carry one)' },
  };
  const requireIdempotencyKey =
    <I>(handler: (input: I, req: Parameters<typeof handlers.transfer>[1], res: Parameters<typeof handlers.transfer>[2]) => Promise<void>) =>
    (input: I, req: Parameters<typeof handlers.transfer>[1], res: Parameters<typeof handlers.transfer>[2]) => {
      if (!req.idempotency) {
        throw new AppError('invalid_request', 'Send an Idempotency-Key header with a payout: a retry then never sends the money twice', {
          details: { field: 'Idempotency-Key' },
        });
      }
      return handler(input, req, res);
    };

  type TransferInput = Parameters<typeof handlers.transfer>[0];
  type WithdrawalInput = Parameters<typeof handlers.withdrawal>[0];
  type Handler<I> = (input: I, req: Parameters<typeof handlers.transfer>[1], res: Parameters<typeof handlers.transfer>[2]) => Promise<void>;
  /**
   * Above the side's approval threshold for its currency, a payout is not
   * sent: it becomes a payout request (202), or a retry of its key answers the
   * request it made (payoutRequestFor).
   */
  const orApprovalRequest =
    <I>(order: (input: I) => PayoutOrder, send: Handler<I>): Handler<I> =>
    async (input, req, res) => {
      const session = sessionOf(req);
      const found = await payoutRequestFor(deps.db, {
        workspaceId: session.workspaceId,
        order: order(input),
        request: req.idempotency!,
        requester: { userId: session.userId, email: session.email },
      });
      if (!found) return send(input, req, res);
      const { request } = found;
      if (found.created) {
        await recordAuditAfter(deps.db, req, {
          action: 'payout_request.created',
          objectId: request.id,
          details: {
            kind: request.kind as PayoutOrder['kind'],
            currency: request.currency,
            amount: formatAmount(request.amount),
            threshold: formatAmount(found.threshold),
            counterparty_account: request.counterpartyAccount,
            counterparty_bank: request.counterpartyBank,
          },
        });
      }
      sendData(req, res, 202, await readPayoutRequest(deps.db, session.workspaceId, request.id));
    };
  const transferOrder = ({ body }: TransferInput): PayoutOrder => ({
    kind: 'transfer',
    currency: body.currency,
    amount: formatAmount(body.amount),
    accountNumber: body.account_number,
    bankCode: body.bank_code,
    accountName: body.account_name,
    bankName: body.bank_name,
    narration: body.narration,
    idempotencyKey: body.idempotency_key,
  });
  const withdrawalOrder = ({ body }: WithdrawalInput): PayoutOrder => ({
    kind: 'withdrawal',
    currency: body.currency,
    amount: formatAmount(body.amount),
    beneficiaryId: body.beneficiary_id,
    narration: body.narration,
    idempotencyKey: body.idempotency_key,
  });
  const becameRequest = {
    202: {
      description:
        'Above the approval threshold of its currency (GET /workspace/settings): not sent, nothing held; a payout request waiting for another owner or admin (a retry with the same Idempotency-Key answers the same request)',
      data: ZPayoutRequest,
    },
  };

  app.route(
    {
      ...payoutSpecs.transfer,
      responses: { ...payoutSpecs.transfer.responses, ...keyRequired, ...becameRequest },
      operationId: 'createSessionTransfer',
      summary: 'Send money to a bank account from the dashboard',
      tag,
      auth: guarded,
      idempotent: true,
    },
    requireIdempotencyKey(orApprovalRequest(transferOrder, handlers.transfer)),
  );
  app.route(
    {
      ...payoutSpecs.withdrawal,
      responses: { ...payoutSpecs.withdrawal.responses, ...keyRequired, ...becameRequest },
      operationId: 'createSessionWithdrawal',
      summary: 'Send money to a saved beneficiary from the dashboard',
      tag,
      auth: guarded,
      idempotent: true,
    },
    requireIdempotencyKey(orApprovalRequest(withdrawalOrder, handlers.withdrawal)),
  );
  registerPayoutRequestRoutes(app, deps, handlers);
  app.route({ ...payoutSpecs.banks, operationId: 'listSessionBanks', tag, auth }, handlers.banks);
  app.route({ ...payoutSpecs.resolve, operationId: 'resolveSessionBankAccount', tag, auth }, handlers.resolve);
  app.route({ ...payoutSpecs.createBeneficiary, operationId: 'createSessionBeneficiary', tag, auth, idempotent: true }, handlers.createBeneficiary);
  app.route({ ...payoutSpecs.listBeneficiaries, operationId: 'listSessionBeneficiaries', tag, auth }, handlers.listBeneficiaries);
  app.route(
    {
      method: 'delete',
      path: '/beneficiaries/:id',
      operationId: 'removeSessionBeneficiary',
      summary: 'Remove a beneficiary',
      description: 'It stays on record (payouts sent to it name it) but no withdrawal can use it again.',
      tag,
      auth,
      request: { params: ZBeneficiaryParams },
      responses: {
        200: { description: 'Removed', data: ZRemovedBeneficiary },
        404: { description: 'not_found: no such active beneficiary in this workspace' },
      },
    },
    async ({ params }, req, res) => {
      sendData(req, res, 200, await removeBeneficiary(deps.db, sessionOf(req).workspaceId, parsePathId(params.id, beneficiaryNotFound)));
    },
  );
  // The breakers /readyz shows, for the session's mode (test mode pays on the sandbox alone).
  const readRails = payoutRailStates(deps);
  app.route(
    {
      method: 'get',
      path: '/payout-rails',
      operationId: 'listPayoutRails',
      summary: "Each payout rail of the session's mode and its breaker",
      description:
        'The live payout rails (PAYOUT_RAILS) in their order of preference, each with its circuit breaker: a rail that failed on its own is passed over (open) until its cool-down ends, then one probe payout tries it (half_open), and its success closes it again. ' +
        'With one rail there is nothing to fail over to and its breaker stays closed; in test mode the one rail is the sandbox.',
      tag,
      auth,
      responses: { 200: { description: 'One row per rail, in order of preference', data: z.array(ZPayoutRailState) } },
    },
    async (_input, req, res) => {
      const closed = (rail: string) => ({ rail, state: 'closed' as const, failures: 0, open_until: null });
      if (sessionOf(req).mode === 'test') return sendData(req, res, 200, [closed('sandbox')]);
      sendData(req, res, 200, (await readRails()) ?? deps.config.PAYOUT_RAILS.map(closed));
    },
  );
}

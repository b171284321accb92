import type { Request, Response } from 'express';
import type { z } from 'zod';
import { AppError, formatAmount, parsePathId, withRailErrors, type Mode } from '@cowrie/core';
import {
  approvePayoutRequest,
  awaitPayout,
  createBeneficiary,
  listBalances,
  listBanks,
  listBeneficiaries,
  listPayoutRequests,
  listRecipients,
  listTransactions,
  payoutRequestFor,
  readPayoutRequest,
  readWorkspaceSettings,
  rejectPayoutRequest,
  rejectRequestsOfFormerRequester,
  removeBeneficiary,
  type renderBeneficiary,
  replaceApprovalThresholds,
  resolveBankAccount,
  submitPayout,
  type CreatedPayout,
  type PayoutDeps,
  type PayoutKind,
  type PayoutOrder,
  type RenderedTransaction,
  type SubmitPayoutDeps,
  type SubmitPayoutOutcome,
} from '@cowrie/payouts';
import type { DbOrTx, PayoutRequest } from '@cowrie/db';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { apiKeyOf, sendData, sendPage, sessionOf } from '../../http/respond';
import { recordAudit, recordAuditAfter } from '../../http/audit';
import { payoutRailStates } from '../health/handlers';
import type { ZBeneficiariesQuery, ZBeneficiaryBody, ZResolveBody, ZTransferBody, ZWithdrawalBody } from './schemas';
import type { payoutApiSpecs, payoutDashboardSpecs } from './specs';

/** Whom a payout request acts for: the workspace and mode of its API key (/v1) or of its session (the dashboard). */
export type PayoutActor = (req: Request) => { workspaceId: number; mode: Mode };

/** Called once a request opened a new payout (not for a replay that found one), before its job is queued. */
export type PayoutOpened = (req: Request, payout: CreatedPayout['transaction'], kind: PayoutKind) => Promise<void>;
/** A beneficiary as the API answers it. */
type RenderedBeneficiary = ReturnType<typeof renderBeneficiary>;
/** Called once a request saved a beneficiary, before it is answered. */
type BeneficiarySaved = (req: Request, beneficiary: RenderedBeneficiary) => Promise<void>;

/** What the audit trail keeps of a beneficiary saved or removed from the dashboard. */
const beneficiaryAuditDetails = (b: RenderedBeneficiary) => ({ name: b.name, account_number: b.account_number, bank_code: b.bank_code, currency: b.currency });

/**
 * Payouts, bank lookup and beneficiaries: one handler per action, shared by
 * the /v1 routes (API key) and the dashboard's (session), so both answer by
 * the same rules. A payout is @cowrie/payouts' submitPayout (its row and hold
 * committed, its job queued, the worker waited for up to
 * PAYOUT_SYNC_WAIT_MS); its outcome is mapped to an answer here.
 */
export function createPayoutHandlers(deps: GatewayDeps) {
  const modeRails = deps.payoutRails;

  /** The answer of a payout's outcome: its row (201), or the rail's provider_error with the row in its details. */
  function answerOf(outcome: SubmitPayoutOutcome): RenderedTransaction {
    switch (outcome.kind) {
      case 'answered':
        return outcome.transaction;
      case 'rail_error':
        throw new AppError('provider_error', outcome.message, {
          status: outcome.status,
          details: { transaction: outcome.transaction, ...outcome.details },
        });
    }
  }

  /**
   * The handlers acting for `actorOf`'s workspace, on its mode's rails (a test
   * key or test session reaches the sandbox rail only); `onOpened` hears of
   * each payout they open (the dashboard's audit trail).
   */
  return (actorOf: PayoutActor, onOpened?: PayoutOpened, onBeneficiarySaved?: BeneficiarySaved) => {
    const depsFor = (req: Request): PayoutDeps => ({
      db: deps.db,
      sql: deps.sql,
      rails: modeRails[actorOf(req).mode],
      feeSchedule: deps.config.PAYOUT_FEE_SCHEDULE,
    });
    const submitDepsFor = (req: Request): SubmitPayoutDeps => ({
      ...depsFor(req),
      channel: deps.queues.payouts,
      syncWaitMs: deps.config.PAYOUT_SYNC_WAIT_MS,
      log: req.log,
      onOpened: onOpened && ((payout, kind) => onOpened(req, payout, kind)),
    });
    const railsFor = (req: Request) => modeRails[actorOf(req).mode];
    return {
      /** The payout rules' deps on the actor's side (a payout request's approval opens its payout with them). */
      payoutDeps: depsFor,
      /** Runs a payout opened elsewhere (an approved payout request) as the routes do: its answer, or the provider_error they throw. */
      run: async (req: Request, payout: CreatedPayout, kind: PayoutKind) => answerOf(await awaitPayout(submitDepsFor(req), payout, kind)),
      async transfer({ body }: { body: z.output<typeof ZTransferBody> }, req: Request, res: Response) {
        const outcome = await submitPayout(submitDepsFor(req), {
          kind: 'transfer',
          workspaceId: actorOf(req).workspaceId,
          currency: body.currency,
          amount: body.amount,
          accountNumber: body.account_number,
          bankCode: body.bank_code,
          accountName: body.account_name,
          bankName: body.bank_name,
          narration: body.narration,
          idempotencyKey: body.idempotency_key,
          request: req.idempotency,
        });
        sendData(req, res, 201, answerOf(outcome));
      },
      async withdrawal({ body }: { body: z.output<typeof ZWithdrawalBody> }, req: Request, res: Response) {
        const outcome = await submitPayout(submitDepsFor(req), {
          kind: 'withdrawal',
          workspaceId: actorOf(req).workspaceId,
          currency: body.currency,
          amount: body.amount,
          beneficiaryId: body.beneficiary_id,
          narration: body.narration,
          idempotencyKey: body.idempotency_key,
          request: req.idempotency,
        });
        sendData(req, res, 201, answerOf(outcome));
      },
      async banks(_input: unknown, req: Request, res: Response) {
        sendData(req, res, 200, await listBanks(railsFor(req)));
      },
      async resolve({ body }: { body: z.output<typeof ZResolveBody> }, req: Request, res: Response) {
        const account = await resolveBankAccount(railsFor(req), {
          accountNumber: body.account_number,
          bankCode: body.bank_code,
          currency: body.currency ?? 'NGN',
        });
        sendData(req, res, 200, account);
      },
      async createBeneficiary({ body }: { body: z.output<typeof ZBeneficiaryBody> }, req: Request, res: Response) {
        const beneficiary = await withRailErrors(() =>
          createBeneficiary(
            { db: deps.db, rails: railsFor(req) },
            { workspaceId: actorOf(req).workspaceId, name: body.name, accountNumber: body.account_number, bankCode: body.bank_code, currency: body.currency },
          ),
        );
        await onBeneficiarySaved?.(req, beneficiary);
        sendData(req, res, 201, beneficiary);
      },
      async listBeneficiaries({ query }: { query: z.output<typeof ZBeneficiariesQuery> }, req: Request, res: Response) {
        sendPage(req, res, await listBeneficiaries(deps.db, { workspaceId: actorOf(req).workspaceId, ...query }));
      },
    };
  };
}

type PayoutHandlersFor = ReturnType<typeof createPayoutHandlers>;

/** One handler per /v1 payout route (payoutApiSpecs): the shared actions acting for the API key, and the ledger views. */
export function createPayoutApiHandlers(deps: GatewayDeps, handlersFor: PayoutHandlersFor): HandlersOf<typeof payoutApiSpecs> {
  const handlers = handlersFor((req) => apiKeyOf(req));
  return {
    createTransfer: handlers.transfer,
    createWithdrawal: handlers.withdrawal,
    listBanks: handlers.banks,
    resolveBankAccount: handlers.resolve,
    createBeneficiary: handlers.createBeneficiary,
    listBeneficiaries: handlers.listBeneficiaries,
    listBalances: async (_input, req, res) => {
      sendData(req, res, 200, await listBalances(deps.db, apiKeyOf(req).workspaceId));
    },
    listTransactions: async ({ query }, req, res) => {
      const page = await listTransactions(deps.db, { workspaceId: apiKeyOf(req).workspaceId, ...query });
      sendPage(req, res, page);
    },
    listRecipients: async ({ query }, req, res) => {
      sendPage(req, res, await listRecipients(deps.db, { workspaceId: apiKeyOf(req).workspaceId, ...query }));
    },
  };
}

/**
 * The audit row of a rejected payout request, in the transaction `tx` that
 * rejected it, on the request's own side (a removal rejects those of both).
 */
function recordPayoutRequestRejected(tx: DbOrTx, req: Request, rejected: PayoutRequest): Promise<void> {
  const session = sessionOf(req);
  return recordAudit(
    tx,
    req,
    {
      action: 'payout_request.rejected',
      objectId: rejected.id,
      details: {
        currency: rejected.currency,
        amount: formatAmount(rejected.amount),
        requested_by: rejected.requestedByEmail,
        reason: rejected.rejectionReason,
      },
    },
    { workspaceId: rejected.workspaceId, actor: { type: 'user', userId: session.userId, email: session.email } },
  );
}

/**
 * Rejects, in the transaction `tx` of a user's removal or role change, the
 * pending payout requests of that user if they may no longer ask for payouts
 * (rejectRequestsOfFormerRequester), each with its audit row.
 */
export async function rejectRequestsOnTeamChange(tx: DbOrTx, req: Request, userId: number): Promise<void> {
  const session = sessionOf(req);
  const rejected = await rejectRequestsOfFormerRequester(tx, { businessId: session.businessId, userId, rejecter: userOf(req) });
  for (const row of rejected) await recordPayoutRequestRejected(tx, req, row);
}

const beneficiaryNotFound = () => new AppError('not_found', 'Beneficiary not found');
const requestNotFound = () => new AppError('not_found', 'Payout request not found');
const userOf = (req: Request) => {
  const session = sessionOf(req);
  return { userId: session.userId, email: session.email };
};

/**
 * One handler per dashboard payout route (payoutDashboardSpecs): the /v1
 * actions acting for the session's workspace and mode, each payout it opens
 * recorded in the audit trail; a transfer or withdrawal must carry an
 * Idempotency-Key and, above the side's approval threshold, becomes a payout
 * request; the payout approvals (maker-checker) act on the side Cowrie-Mode
 * chooses.
 */
export function createPayoutDashboardHandlers(deps: GatewayDeps, handlersFor: PayoutHandlersFor): HandlersOf<typeof payoutDashboardSpecs> {
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
    (req, beneficiary) =>
      recordAuditAfter(deps.db, req, { action: 'beneficiary.created', objectId: beneficiary.id, details: beneficiaryAuditDetails(beneficiary) }),
  );
  type Handler<I> = (input: I, req: Request, res: Response) => Promise<void>;
  const requireIdempotencyKey =
    <I>(handler: Handler<I>): Handler<I> =>
    (input, req, res) => {
      if (!req.idempotency) {
        throw new AppError('invalid_request', 'Send an Idempotency-Key header with a payout: a retry then never sends the money twice', {
          details: { field: 'Idempotency-Key' },
        });
      }
      return handler(input, req, res);
    };

  type TransferInput = Parameters<typeof handlers.transfer>[0];
  type WithdrawalInput = Parameters<typeof handlers.withdrawal>[0];
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
  const readRails = payoutRailStates(deps);

  return {
    createSessionTransfer: requireIdempotencyKey(orApprovalRequest(transferOrder, handlers.transfer)),
    createSessionWithdrawal: requireIdempotencyKey(orApprovalRequest(withdrawalOrder, handlers.withdrawal)),
    getWorkspaceSettings: async (_input, req, res) => {
      sendData(req, res, 200, await readWorkspaceSettings(deps.db, sessionOf(req).workspaceId));
    },
    updateWorkspaceSettings: async ({ body }, req, res) => {
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
    listPayoutRequests: async ({ query }, req, res) => {
      sendPage(req, res, await listPayoutRequests(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
    getPayoutRequest: async ({ params }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, parsePathId(params.id, requestNotFound)));
    },
    approvePayoutRequest: async ({ params }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const id = parsePathId(params.id, requestNotFound);
      const approval = await approvePayoutRequest(handlers.payoutDeps(req), { workspaceId, id, approver: userOf(req) });
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
          await handlers.run(req, payout, request.kind as PayoutKind);
        } catch (err) {
          if (err instanceof AppError && err.code === 'provider_error') {
            throw new AppError(err.code, err.message, { status: err.status, details: { ...err.details, payout_request: request.id } });
          }
          throw err;
        }
      }
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, id));
    },
    rejectPayoutRequest: async ({ params, body }, req, res) => {
      const workspaceId = sessionOf(req).workspaceId;
      const id = parsePathId(params.id, requestNotFound);
      await deps.db.$transaction(async (tx) => {
        const rejected = await rejectPayoutRequest(tx, { workspaceId, id, rejecter: userOf(req), reason: body.reason });
        await recordPayoutRequestRejected(tx, req, rejected);
      });
      sendData(req, res, 200, await readPayoutRequest(deps.db, workspaceId, id));
    },
    listSessionBanks: handlers.banks,
    resolveSessionBankAccount: handlers.resolve,
    createSessionBeneficiary: handlers.createBeneficiary,
    listSessionBeneficiaries: handlers.listBeneficiaries,
    removeSessionBeneficiary: async ({ params }, req, res) => {
      const { answer, removed } = await removeBeneficiary(deps.db, sessionOf(req).workspaceId, parsePathId(params.id, beneficiaryNotFound));
      await recordAuditAfter(deps.db, req, { action: 'beneficiary.removed', objectId: removed.id, details: beneficiaryAuditDetails(removed) });
      sendData(req, res, 200, answer);
    },
    listPayoutRails: async (_input, req, res) => {
      const closed = (rail: string) => ({ rail, state: 'closed' as const, failures: 0, open_until: null });
      if (sessionOf(req).mode === 'test') return sendData(req, res, 200, [closed('sandbox')]);
      sendData(req, res, 200, (await readRails()) ?? deps.config.PAYOUT_RAILS.map(closed));
    },
  };
}

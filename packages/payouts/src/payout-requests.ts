import { z } from 'zod';
import { AppError, Decimal, amountField, decodePageCursor, formatAmount, newestFirst, pageLimit, pageOf, rowsAfter } from '@cowrie/core';
import type { DbOrTx, PayoutRequest, Prisma, PrismaClient } from '@cowrie/db';
import { teamStanding } from '@cowrie/accounts';
import { findAnsweringDebit } from '@cowrie/ledger';
import { checkPayoutCurrency } from './currency';
import { findActiveBeneficiary } from './beneficiaries';
import { createTransfer, createWithdrawal, type CreatedPayout, type PayoutDeps, type PayoutRequestKey } from './payout-open';

/**
 * Payout approvals (maker-checker) of the dashboard. A side (live or test) of
 * a workspace may name, per currency, an amount above which a dashboard
 * payout is not sent but becomes a payout request; another owner or admin
 * approves it (the payout is then sent, once, under the requester's
 * Idempotency-Key) or rejects it, within 24 hours. No money is held while it
 * waits: the balance is checked when it is approved, by the payout's own
 * pre-flight checks. /v1 payouts never need an approval.
 */

/** How long a request can be approved. */
export const PAYOUT_REQUEST_TTL_HOURS = 24;

/** What a request reads as: `expired` is a `pending` row past its time (computed, never stored). */
export const PAYOUT_REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type PayoutRequestStatus = (typeof PAYOUT_REQUEST_STATUSES)[number];

// ─── The setting ────────────────────────────────────────────────────────────────

/** A side's thresholds: currency → the amount a payout may be without an approval. */
export type ApprovalThresholds = Record<string, Decimal>;

/** `payout_approval_thresholds` as a client sends it: a catalog currency to an amount of at least 0 (0: every payout of it needs an approval). */
export const ZApprovalThresholds = z
  .record(z.string().meta({ description: 'Currency code, in capitals' }), amountField({ min: 0 }))
  .superRefine((thresholds, ctx) => {
    for (const currency of Object.keys(thresholds)) {
      let payoutCurrency = /^[A-Z]{3,4}$/.test(currency);
      try {
        if (payoutCurrency) checkPayoutCurrency(currency);
      } catch {
        payoutCurrency = false;
      }
      if (!payoutCurrency) ctx.addIssue({ code: 'custom', message: `has ${currency}, which is not a payout currency code (in capitals)`, path: [] });
    }
  })
  .meta({
    description:
      'Currency → amount (major units). A dashboard payout of more than the amount in its currency waits for the approval of another owner or admin; a currency not listed never does. `{}`: off (the default).',
  });

/** The settings of a side of a workspace, as GET and PUT /workspace/settings answer them. */
export interface WorkspaceSettingsView {
  payout_approval_thresholds: Record<string, string>;
}

function thresholdsOf(stored: Prisma.JsonValue): ApprovalThresholds {
  const out: ApprovalThresholds = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [currency, value] of Object.entries(stored)) if (typeof value === 'string') out[currency] = new Decimal(value);
  }
  return out;
}

const renderThresholds = (thresholds: ApprovalThresholds): Record<string, string> =>
  Object.fromEntries(Object.entries(thresholds).map(([currency, amount]) => [currency, formatAmount(amount)]));

/** GET /workspace/settings. */
export async function readWorkspaceSettings(db: DbOrTx, workspaceId: number): Promise<WorkspaceSettingsView> {
  const row = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { payoutApprovalThresholds: true } });
  return { payout_approval_thresholds: renderThresholds(thresholdsOf(row.payoutApprovalThresholds)) };
}

/** PUT /workspace/settings: the side's thresholds become `thresholds` (the whole set); answers the settings before and after. */
export async function replaceApprovalThresholds(
  db: DbOrTx,
  workspaceId: number,
  thresholds: ApprovalThresholds,
): Promise<{ before: WorkspaceSettingsView; after: WorkspaceSettingsView }> {
  const before = await readWorkspaceSettings(db, workspaceId);
  const stored = renderThresholds(thresholds);
  await db.workspace.update({ where: { id: workspaceId }, data: { payoutApprovalThresholds: stored } });
  return { before, after: { payout_approval_thresholds: stored } };
}

/** Whether a payout of `amount` needs an approval: more than its currency's threshold (equal to it does not). */
export const needsApproval = (thresholds: ApprovalThresholds, currency: string, amount: Decimal): boolean => {
  const threshold = thresholds[currency];
  return threshold !== undefined && amount.greaterThan(threshold);
};

// ─── Requests ───────────────────────────────────────────────────────────────────

/** The payout a request asks for, as the transfer or withdrawal would have been sent (amount as its decimal text). */
export type PayoutOrder =
  | {
      kind: 'transfer';
      currency: string;
      amount: string;
      accountNumber: string;
      bankCode?: string;
      accountName?: string;
      bankName?: string;
      narration?: string;
      idempotencyKey?: string;
    }
  | { kind: 'withdrawal'; currency: string; amount: string; beneficiaryId: number; narration?: string; idempotencyKey?: string };

/** A dashboard user acting on a request. */
export interface RequestActor {
  userId: number;
  email: string;
}

const idempotencyConflict = () => new AppError('idempotency_conflict', 'This Idempotency-Key was reused with a different request body (or method or path)');
const requestNotFound = () => new AppError('not_found', 'Payout request not found');

/** The request an Idempotency-Key already made (the same request: answered with it), or null; the key with another body is a conflict. */
async function requestOfKey(db: DbOrTx, workspaceId: number, request: PayoutRequestKey): Promise<PayoutRequest | null> {
  const row = await db.payoutRequest.findUnique({ where: { workspaceId_requestKey: { workspaceId, requestKey: request.key } } });
  if (row && row.requestHash !== request.requestHash) throw idempotencyConflict();
  return row;
}

/**
 * Whether a dashboard payout waits for an approval, decided before any money
 * is held: the payout request its Idempotency-Key made before (a retry
 * answers that request, whatever the thresholds say now), else a new request
 * when the amount is above the side's threshold for the currency and no
 * earlier payout would answer it (findAnsweringDebit: a retry of a payout
 * sent before the threshold was lowered answers that payout, the key with
 * another body is a conflict; a payout older than the key's 24 hours answers
 * nothing, so its key makes a new request), else null: the payout goes now. A new
 * request passes the checks that do not depend on the balance (currency,
 * wallet, beneficiary); the balance is checked when it is approved.
 */
export async function payoutRequestFor(
  db: PrismaClient,
  input: { workspaceId: number; order: PayoutOrder; request: PayoutRequestKey; requester: RequestActor; now?: Date },
): Promise<{ request: PayoutRequest; created: false } | { request: PayoutRequest; created: true; threshold: Decimal } | null> {
  const { workspaceId, order, request } = input;
  const earlier = await requestOfKey(db, workspaceId, request);
  if (earlier) return { request: earlier, created: false };
  const currency = checkPayoutCurrency(order.currency);
  const workspace = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { payoutApprovalThresholds: true } });
  const thresholds = thresholdsOf(workspace.payoutApprovalThresholds);
  if (!needsApproval(thresholds, currency, new Decimal(order.amount))) return null;
  const now = input.now ?? new Date();
  // Only a payout the ledger would answer this request with (or refuse it for, 409) lets it through: one older than the key's
  // retention no longer holds the key, and sending now would open a new payout with this body.
  // So does one its body's idempotency_key names: sent now, the request is answered with it, as a payout sent at once is.
  if (await findAnsweringDebit(db, { workspaceId, idempotencyKey: order.idempotencyKey, request, now })) return null;

  const wallet = await db.wallet.findUnique({ where: { workspaceId_currency: { workspaceId, currency } }, select: { id: true } });
  if (!wallet) throw new AppError('not_found', `This workspace has no ${currency} wallet`, { details: { currency } });
  let counterparty: Pick<PayoutRequest, 'counterpartyName' | 'counterpartyAccount' | 'counterpartyBank' | 'beneficiaryId'>;
  if (order.kind === 'withdrawal') {
    const beneficiary = await findActiveBeneficiary(db, workspaceId, order.beneficiaryId);
    if (!beneficiary) throw new AppError('not_found', 'Beneficiary not found', { details: { field: 'beneficiary_id' } });
    if (beneficiary.currency !== currency) {
      throw new AppError('invalid_request', `currency ${currency} does not match the beneficiary's currency ${beneficiary.currency}`, {
        details: { field: 'currency' },
      });
    }
    counterparty = {
      counterpartyName: beneficiary.name,
      counterpartyAccount: beneficiary.accountNumber,
      counterpartyBank: beneficiary.bankName,
      beneficiaryId: beneficiary.id,
    };
  } else {
    counterparty = {
      counterpartyName: order.accountName ?? null,
      counterpartyAccount: order.accountNumber,
      counterpartyBank: order.bankName ?? order.bankCode ?? null,
      beneficiaryId: null,
    };
  }
  try {
    const created = await db.payoutRequest.create({
      data: {
        workspaceId,
        kind: order.kind,
        currency,
        amount: order.amount,
        ...counterparty,
        narration: order.narration ?? null,
        body: { ...order, currency } as Prisma.InputJsonObject,
        requestKey: request.key,
        requestHash: request.requestHash,
        requestedByUserId: input.requester.userId,
        requestedByEmail: input.requester.email,
        expiresAt: new Date(now.getTime() + PAYOUT_REQUEST_TTL_HOURS * 3600_000),
        createdAt: now,
      },
    });
    return { request: created, created: true, threshold: thresholds[currency]! };
  } catch (err) {
    // The same key racing in (the idempotency layer's claim gone stale): the first one's request.
    if ((err as { code?: unknown }).code !== 'P2002') throw err;
    const raced = await requestOfKey(db, workspaceId, request);
    if (!raced) throw err;
    return { request: raced, created: false };
  }
}

/** What a row reads as at `now`. */
export const payoutRequestStatus = (row: Pick<PayoutRequest, 'status' | 'expiresAt'>, now = new Date()): PayoutRequestStatus =>
  row.status === 'pending' && row.expiresAt <= now ? 'expired' : (row.status as PayoutRequestStatus);

async function findRequest(db: DbOrTx, workspaceId: number, id: number): Promise<PayoutRequest> {
  const row = await db.payoutRequest.findFirst({ where: { id, workspaceId } });
  if (!row) throw requestNotFound();
  return row;
}

/** 400 for a request that can no longer be decided: expired, or approved or rejected already (by whom). */
function notPending(row: PayoutRequest, now: Date): AppError {
  const status = payoutRequestStatus(row, now);
  if (status === 'expired') {
    return new AppError('invalid_request', `This payout request expired at ${row.expiresAt.toISOString()}: ask for the payout again`, {
      details: { reason: 'payout_request_expired', status },
    });
  }
  return new AppError('invalid_request', `This payout request was already ${status}${row.decidedByEmail ? ` by ${row.decidedByEmail}` : ''}`, {
    details: { reason: 'payout_request_decided', status },
  });
}

const refuseOwn = (row: PayoutRequest, actor: RequestActor) => {
  if (row.requestedByUserId === actor.userId) {
    throw new AppError('insufficient_scope', 'You asked for this payout: another owner or admin must approve it', {
      details: { reason: 'own_payout_request' },
    });
  }
};

/**
 * 403 for a request whose requester may no longer ask for a payout: removed
 * from the team (or disabled) or no longer an owner or admin. A request stands
 * only while its requester could make it (rejectRequestsOfFormerRequester
 * rejects them when that changes); it stays readable, and can be rejected.
 */
async function refuseUnlessRequesterMayAsk(db: DbOrTx, row: PayoutRequest): Promise<void> {
  const standing = await teamStanding(db, { workspaceId: row.workspaceId, userId: row.requestedByUserId });
  if (standing === 'manager') return;
  throw new AppError(
    'insufficient_scope',
    `${row.requestedByEmail}, who asked for this payout, is no longer an owner or admin of this workspace (${standing === 'removed' ? 'removed' : 'now a member'}): it cannot be approved; reject it`,
    { details: { reason: 'requester_not_allowed' } },
  );
}

/** What an approval did: the request, and the payout it opened (null when the request's payout was recorded before: answered as it stands). */
export interface ApprovedPayout {
  request: PayoutRequest;
  payout: CreatedPayout | null;
  /** True for the approval that moved the request from pending (not a retry by its approver). */
  approvedNow: boolean;
}

/**
 * Approves a pending request and opens its payout (its `processing` row and
 * hold) under the requester's Idempotency-Key; the caller then runs it.
 * The approval is one conditional update (pending, not expired, not the
 * requester's), so of two approvals at once one wins and the other is
 * refused; before it, a requester who may no longer ask for a payout
 * (removed, or no longer an owner or admin) is refused (403
 * `requester_not_allowed`). The payout is opened after it: its key's unique index on the
 * ledger makes any second open (the approver's retry after a crash between
 * the two) find the first instead of paying again. A payout the pre-flight
 * checks refuse (the balance, a removed beneficiary) puts the request back to
 * pending, so it can be approved once the wallet holds enough; so does a
 * payout found under the body's idempotency_key that is not this request's
 * (409 `idempotency_key_used`): the approval is never tied to another payout.
 */
export async function approvePayoutRequest(
  deps: PayoutDeps,
  input: { workspaceId: number; id: number; approver: RequestActor; now?: Date },
): Promise<ApprovedPayout> {
  const { db } = deps;
  const now = input.now ?? new Date();
  const row = await findRequest(db, input.workspaceId, input.id);
  refuseOwn(row, input.approver);
  // Of a request still to decide (a decided one is answered as such; an approval being finished was decided already). Read
  // before the conditional update: a removal (or demotion) rejects the pending request in its own transaction, so one that
  // commits after this read makes the update find the request decided.
  if (payoutRequestStatus(row, now) === 'pending') await refuseUnlessRequesterMayAsk(db, row);
  const { count } = await db.payoutRequest.updateMany({
    where: { id: row.id, status: 'pending', expiresAt: { gt: now }, requestedByUserId: { not: input.approver.userId } },
    data: { status: 'approved', decidedByUserId: input.approver.userId, decidedByEmail: input.approver.email, decidedAt: now },
  });
  const approved = await findRequest(db, input.workspaceId, input.id);
  // Not approved by this call: only its own approver resumes it (its retry), and only while its payout is not recorded.
  if (count === 0 && (approved.status !== 'approved' || approved.decidedByUserId !== input.approver.userId)) throw notPending(approved, now);
  if (approved.transactionId !== null) return { request: approved, payout: null, approvedNow: false };
  // Resumed (a crash after the open and before its link): the payout it opened, found by its request whatever its age (the
  // ledger answers a header key for 24 hours only, and a second open a day later would pay again), is linked and answered.
  if (count === 0) {
    const opened = await db.ledgerTransaction.findFirst({
      where: {
        workspaceId: approved.workspaceId,
        type: 'debit',
        requestKey: approved.requestKey,
        requestHash: approved.requestHash,
        status: { not: 'failed' },
      },
      select: { id: true },
    });
    if (opened) {
      await db.payoutRequest.updateMany({ where: { id: approved.id, transactionId: null }, data: { transactionId: opened.id } });
      return { request: await findRequest(db, input.workspaceId, input.id), payout: null, approvedNow: false };
    }
  }

  let payout: CreatedPayout;
  try {
    payout = await openOrderedPayout(deps, approved);
    // A payout found rather than opened answers this approval only when it is this request's own (an approval resumed after a
    // crash); any other is one the body's idempotency_key named since the request was made, which would stand in for it.
    if (!payout.created && !isPayoutOf(approved, payout.transaction)) throw idempotencyKeyUsed(approved, payout.transaction);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      await db.payoutRequest.updateMany({
        where: { id: approved.id, status: 'approved', transactionId: null, decidedByUserId: input.approver.userId },
        data: { status: 'pending', decidedByUserId: null, decidedByEmail: null, decidedAt: null },
      });
    }
    throw err;
  }
  await db.payoutRequest.updateMany({ where: { id: approved.id, transactionId: null }, data: { transactionId: payout.transaction.id } });
  return { request: await findRequest(db, input.workspaceId, input.id), payout, approvedNow: count === 1 };
}

/** Whether a payout is the one this request's approval opened: sent under its Idempotency-Key and request hash. */
const isPayoutOf = (row: PayoutRequest, transaction: CreatedPayout['transaction']) =>
  transaction.requestKey === row.requestKey && transaction.requestHash === row.requestHash;

/** 409 for an approval whose payout would be another one its body's idempotency_key already names: the request stays pending. */
function idempotencyKeyUsed(row: PayoutRequest, transaction: CreatedPayout['transaction']): AppError {
  const order = row.body as unknown as PayoutOrder;
  return new AppError(
    'idempotency_conflict',
    `This payout request's idempotency_key ${order.idempotencyKey ?? ''} already names another payout (${transaction.reference}, ${formatAmount(transaction.amount)} ${transaction.currency}), so its own cannot be sent under it: reject it and ask for the payout again with another idempotency_key`,
    { details: { field: 'idempotency_key', reason: 'idempotency_key_used', transaction: { id: transaction.id, reference: transaction.reference } } },
  );
}

/** The request's payout, through the same pre-flight path as a payout sent at once, keyed by the requester's Idempotency-Key. */
function openOrderedPayout(deps: PayoutDeps, row: PayoutRequest): Promise<CreatedPayout> {
  const order = row.body as unknown as PayoutOrder;
  const common = {
    workspaceId: row.workspaceId,
    currency: row.currency,
    amount: new Decimal(row.amount.toString()),
    narration: order.narration,
    idempotencyKey: order.idempotencyKey,
    request: { key: row.requestKey, requestHash: row.requestHash },
  };
  if (order.kind === 'withdrawal') return createWithdrawal(deps, { ...common, beneficiaryId: order.beneficiaryId });
  return createTransfer(deps, {
    ...common,
    accountNumber: order.accountNumber,
    bankCode: order.bankCode,
    accountName: order.accountName,
    bankName: order.bankName,
  });
}

export const ZRejectPayoutRequest = z.object({
  reason: z
    .string()
    .trim()
    .max(500, 'must be at most 500 characters')
    .nullish()
    .transform((v) => v || undefined)
    .meta({ description: 'Why (shown to the team and kept in the audit trail)' }),
});

/**
 * Rejects a pending request (one conditional update, in `tx` with its audit
 * row): nothing is sent. Its requester may reject their own (a withdrawn
 * request); an expired or decided one is refused.
 */
export async function rejectPayoutRequest(
  tx: DbOrTx,
  input: { workspaceId: number; id: number; rejecter: RequestActor; reason?: string; now?: Date },
): Promise<PayoutRequest> {
  const now = input.now ?? new Date();
  const row = await findRequest(tx, input.workspaceId, input.id);
  const { count } = await tx.payoutRequest.updateMany({
    where: { id: row.id, status: 'pending', expiresAt: { gt: now } },
    data: {
      status: 'rejected',
      decidedByUserId: input.rejecter.userId,
      decidedByEmail: input.rejecter.email,
      decidedAt: now,
      rejectionReason: input.reason ?? null,
    },
  });
  const after = await findRequest(tx, input.workspaceId, input.id);
  if (count === 0) throw notPending(after, now);
  return after;
}

/**
 * Rejects, in `tx` (the removal's or the role change's transaction), the
 * pending requests of a user who may no longer ask for payouts: removed from
 * the team (or disabled) or no longer an owner or admin, on both sides of the
 * business. Nothing for a user who still may. The rows rejected, for their
 * audit rows; an expired one is left as it reads.
 */
export async function rejectRequestsOfFormerRequester(
  tx: DbOrTx,
  input: { businessId: number; userId: number; rejecter: RequestActor; now?: Date },
): Promise<PayoutRequest[]> {
  const now = input.now ?? new Date();
  const standing = await teamStanding(tx, { workspaceId: input.businessId, userId: input.userId });
  if (standing === 'manager') return [];
  const sides = await tx.workspace.findMany({ where: { OR: [{ id: input.businessId }, { liveWorkspaceId: input.businessId }] }, select: { id: true } });
  const rejected = await tx.payoutRequest.updateManyAndReturn({
    where: { workspaceId: { in: sides.map((w) => w.id) }, requestedByUserId: input.userId, status: 'pending', expiresAt: { gt: now } },
    data: {
      status: 'rejected',
      decidedByUserId: input.rejecter.userId,
      decidedByEmail: input.rejecter.email,
      decidedAt: now,
      rejectionReason: standing === 'removed' ? 'Its requester was removed from the team' : 'Its requester is no longer an owner or admin',
    },
  });
  return rejected.sort((a, b) => a.id - b.id);
}

// ─── Reading ────────────────────────────────────────────────────────────────────

/** A payout request as the API shows it. */
export interface PayoutRequestView {
  id: number;
  kind: 'transfer' | 'withdrawal';
  status: PayoutRequestStatus;
  currency: string;
  amount: string;
  counterparty_name: string | null;
  counterparty_account: string;
  counterparty_bank: string | null;
  beneficiary_id: number | null;
  narration: string | null;
  requested_by: { user_id: number; email: string };
  decided_by: { user_id: number; email: string } | null;
  decided_at: string | null;
  rejection_reason: string | null;
  /** The payout sent on approval, as it stands. */
  transaction: { id: number; reference: string; status: string } | null;
  expires_at: string;
  created_at: string;
}

type TransactionBrief = NonNullable<PayoutRequestView['transaction']>;

function renderPayoutRequest(row: PayoutRequest, transaction: TransactionBrief | null, now: Date): PayoutRequestView {
  return {
    id: row.id,
    kind: row.kind as PayoutRequestView['kind'],
    status: payoutRequestStatus(row, now),
    currency: row.currency,
    amount: formatAmount(row.amount),
    counterparty_name: row.counterpartyName,
    counterparty_account: row.counterpartyAccount,
    counterparty_bank: row.counterpartyBank,
    beneficiary_id: row.beneficiaryId,
    narration: row.narration,
    requested_by: { user_id: row.requestedByUserId, email: row.requestedByEmail },
    decided_by: row.decidedByUserId !== null ? { user_id: row.decidedByUserId, email: row.decidedByEmail ?? '' } : null,
    decided_at: row.decidedAt?.toISOString() ?? null,
    rejection_reason: row.rejectionReason,
    transaction,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

/** The rows as the API shows them, each with its payout's current status. */
export async function renderPayoutRequests(db: DbOrTx, rows: PayoutRequest[], now = new Date()): Promise<PayoutRequestView[]> {
  const ids = rows.map((r) => r.transactionId).filter((id): id is number => id !== null);
  const transactions = ids.length
    ? await db.ledgerTransaction.findMany({ where: { id: { in: ids } }, select: { id: true, reference: true, status: true } })
    : [];
  const byId = new Map(transactions.map((t) => [t.id, t]));
  return rows.map((row) => renderPayoutRequest(row, row.transactionId === null ? null : (byId.get(row.transactionId) ?? null), now));
}

/** One request of the side, as the API shows it. */
export async function readPayoutRequest(db: DbOrTx, workspaceId: number, id: number): Promise<PayoutRequestView> {
  return (await renderPayoutRequests(db, [await findRequest(db, workspaceId, id)]))[0]!;
}

/** The status filter of a list, as a where on the stored status and the expiry. */
function statusWhere(status: PayoutRequestStatus | undefined, now: Date): Prisma.PayoutRequestWhereInput {
  switch (status) {
    case undefined:
      return {};
    case 'pending':
      return { status: 'pending', expiresAt: { gt: now } };
    case 'expired':
      return { status: 'pending', expiresAt: { lte: now } };
    case 'approved':
    case 'rejected':
      return { status };
  }
}

/** GET /payout-requests: the side's requests, newest first, by status, cursor paginated. */
export async function listPayoutRequests(
  db: DbOrTx,
  input: { workspaceId: number; status?: PayoutRequestStatus; limit?: number; cursor?: string; now?: Date },
): Promise<{ items: PayoutRequestView[]; nextCursor: string | null }> {
  const now = input.now ?? new Date();
  const limit = pageLimit(input.limit);
  const where: Prisma.PayoutRequestWhereInput = { workspaceId: input.workspaceId, ...statusWhere(input.status, now) };
  const rows = await db.payoutRequest.findMany({
    where: input.cursor ? { AND: [where, rowsAfter(decodePageCursor(input.cursor))] } : where,
    orderBy: newestFirst(),
    take: limit + 1,
  });
  const page = pageOf(rows, limit, (row) => row);
  return { items: await renderPayoutRequests(db, page.items, now), nextCursor: page.nextCursor };
}

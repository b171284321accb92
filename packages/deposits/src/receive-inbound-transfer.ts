import { formatAmount, type Logger } from '@cowrie/core';
import { recordEvent, type Collection, type InboundPayment, type Prisma, type PrismaClient, type ReservedAccount } from '@cowrie/db';
import { creditWallet, findWallet } from '@cowrie/ledger';
import type { InboundTransfer } from '@cowrie/collection-rails';
import { collectionSuccessfulPayload } from './render';

/** Why a reported transfer was recorded but not credited. */
export const UNMATCHED_REASONS = [
  'unknown_account',
  'amount_mismatch',
  'currency_mismatch',
  'collection_expired',
  'collection_not_pending',
  'account_inactive',
  'no_wallet',
  /** More than one open account holds the number (a provider reused it): held for an operator, credited to nobody. */
  'ambiguous_account',
  /** In production, a live workspace's account reported by a transfer the rail does not call live (a sandbox or a Paystack test-domain notification). */
  'test_money_for_live_account',
  /** A transfer the rail calls live reported for a test workspace's account. */
  'live_money_for_test_account',
] as const;

export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

export interface InboundOutcome {
  matched: boolean;
  /** The notification was seen before: nothing changed this time. */
  duplicate: boolean;
  status: 'credited' | 'unmatched';
  reason: UnmatchedReason | null;
  inbound_payment_id: number;
  provider: string;
  provider_reference: string;
  account_number: string | null;
  amount: string;
  currency: string;
  workspace_id: number | null;
  channel: 'collection_va' | 'reserved_va' | null;
  collection_id: number | null;
  reserved_account_id: number | null;
  transaction_reference: string | null;
}

// Deliveries of one notification queue on its row; under a burst they wait for
// a pooled connection longer than Prisma's 2 s default.
const INBOUND_TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/**
 * The statuses a one-off collection can still be paid in: `pending`, and
 * `expired`, which only a read past `expiresAt` sets (expireIfDue) while the
 * payer may have paid in time and the rail's notification still be on its way.
 */
const PAYABLE_STATUSES = ['pending', 'expired'] as const;

/**
 * When the payer paid: the rail's time, or the notification's arrival (`now`)
 * when it reports none or one after the arrival (a payment cannot be later than
 * the news of it; a clock running fast at the rail must not make a payment late).
 */
function paymentTime(transfer: InboundTransfer, now: Date): Date {
  return transfer.paidAt && transfer.paidAt.getTime() < now.getTime() ? transfer.paidAt : now;
}

type Target = { kind: 'reserved'; account: ReservedAccount } | { kind: 'collection'; collection: Collection } | { kind: 'ambiguous' } | { kind: 'none' };

/** One candidate: the target; several: ambiguous; none: null (look further). */
function onlyOne(reserved: ReservedAccount[], collections: Collection[]): Target | null {
  const count = reserved.length + collections.length;
  if (count > 1) return { kind: 'ambiguous' };
  if (reserved[0]) return { kind: 'reserved', account: reserved[0] };
  if (collections[0]) return { kind: 'collection', collection: collections[0] };
  return null;
}

/**
 * The one account a transfer was paid into, or none, or `ambiguous`. An
 * inbound transfer credits exactly one workspace: a reserved account's number
 * is unique per provider in the database; a one-off collection is matched by
 * the rail's reference of the charge when it reports one, else by its account
 * number, but only while exactly one open account (a reserved account, or a
 * collection that was open when the payer paid: pending, or marked expired by
 * a read since, with `expiresAt` after `paidAt`) holds that number across all
 * workspaces. A provider that reuses a number while two accounts are open
 * makes the transfer ambiguous: it is held for an operator, never guessed.
 * Closed collections are matched last, only to say why nothing is credited.
 */
async function findTarget(tx: Prisma.TransactionClient, t: InboundTransfer, paidAt: Date): Promise<Target> {
  if (t.providerAccountReference) {
    const collections = await tx.collection.findMany({ where: { provider: t.provider, providerAccountReference: t.providerAccountReference }, take: 2 });
    const found = onlyOne([], collections);
    if (found) return found;
  }
  if (!t.accountNumber) return { kind: 'none' };
  const where = { provider: t.provider, accountNumber: t.accountNumber };
  const reserved = await tx.reservedAccount.findMany({ where, take: 2 });
  const open = await tx.collection.findMany({ where: { ...where, status: { in: [...PAYABLE_STATUSES] }, expiresAt: { gt: paidAt } }, take: 2 });
  const found = onlyOne(reserved, open);
  if (found) return found;
  // Nothing open holds the number: the newest closed collection says why it is not credited.
  const closed = await tx.collection.findFirst({ where, orderBy: { id: 'desc' } });
  return closed ? { kind: 'collection', collection: closed } : { kind: 'none' };
}

/**
 * Why the transfer's money may not credit the workspace it was matched to, or
 * null. Money the rail calls live (`livemode`) never credits a test
 * workspace. In production a live workspace is credited only by money the rail
 * calls live: a sandbox notification (the sandbox route of a staging
 * deployment, `cowrie sandbox transfer-in`) or a Paystack test-domain one would
 * otherwise fund a wallet that pays out for real. Outside production live mode
 * may run on the sandbox (development), so its transfers credit live workspaces.
 */
async function modeRefusal(tx: Prisma.TransactionClient, workspaceId: number, transfer: InboundTransfer, production: boolean): Promise<UnmatchedReason | null> {
  const liveMoney = transfer.livemode === true;
  if (!liveMoney && !production) return null;
  const workspace = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { mode: true } });
  const testWorkspace = workspace?.mode === 'test';
  if (liveMoney && testWorkspace) return 'live_money_for_test_account';
  if (!liveMoney && production && !testWorkspace) return 'test_money_for_live_account';
  return null;
}

function outcomeOf(
  row: InboundPayment,
  extra: { duplicate: boolean; channel: InboundOutcome['channel']; transactionReference: string | null },
): InboundOutcome {
  return {
    matched: row.status === 'credited',
    duplicate: extra.duplicate,
    status: row.status === 'credited' ? 'credited' : 'unmatched',
    reason: (row.reason as UnmatchedReason | null) ?? null,
    inbound_payment_id: row.id,
    provider: row.provider,
    provider_reference: row.providerReference,
    account_number: row.accountNumber,
    amount: formatAmount(row.amount),
    currency: row.currency,
    workspace_id: row.workspaceId,
    channel: extra.channel,
    collection_id: row.collectionId,
    reserved_account_id: row.reservedAccountId,
    transaction_reference: extra.transactionReference,
  };
}

/**
 * The one inbound path, for provider notifications and `cowrie sandbox
 * transfer-in` alike. In one transaction: record the transfer once per
 * (provider, providerReference) — a repeat changes nothing —, match it to a
 * reserved account or a pending one-off collection, and either credit the
 * workspace wallet through the ledger and emit collection.successful, or keep
 * it `unmatched` with a reason (logged for operators), never credited.
 * `production` (NODE_ENV=production) refuses money the rail does not call live
 * for a live workspace (see modeRefusal).
 */
export async function receiveInboundTransfer(
  deps: { db: PrismaClient; logger?: Logger; now?: () => Date; production?: boolean },
  transfer: InboundTransfer,
): Promise<InboundOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const paidAt = paymentTime(transfer, now);
  const outcome = await deps.db.$transaction(async (tx) => {
    const inserted = await tx.inboundPayment.createMany({
      data: [
        {
          provider: transfer.provider,
          providerReference: transfer.providerReference,
          accountNumber: transfer.accountNumber,
          amount: transfer.amount.toFixed(6),
          currency: transfer.currency,
          status: 'received',
          senderName: transfer.senderName ?? null,
          senderAccountNumber: transfer.senderAccountNumber ?? null,
          senderBank: transfer.senderBank ?? null,
          narration: transfer.narration ?? null,
          raw: transfer.raw as Prisma.InputJsonValue,
        },
      ],
      // A concurrent delivery of the same notification waits here for the first and then skips.
      skipDuplicates: true,
    });
    const key = { provider_providerReference: { provider: transfer.provider, providerReference: transfer.providerReference } };
    const row = await tx.inboundPayment.findUniqueOrThrow({ where: key });
    if (inserted.count === 0) {
      const ledger = row.ledgerTransactionId
        ? await tx.ledgerTransaction.findUnique({ where: { id: row.ledgerTransactionId }, select: { reference: true, channel: true } })
        : null;
      return outcomeOf(row, {
        duplicate: true,
        channel: (ledger?.channel as InboundOutcome['channel']) ?? null,
        transactionReference: ledger?.reference ?? null,
      });
    }

    const unmatched = async (
      reason: UnmatchedReason,
      link: Partial<Pick<InboundPayment, 'workspaceId' | 'collectionId' | 'reservedAccountId'>>,
      channel: InboundOutcome['channel'],
    ) => {
      const updated = await tx.inboundPayment.update({ where: { id: row.id }, data: { status: 'unmatched', reason, ...link } });
      return outcomeOf(updated, { duplicate: false, channel, transactionReference: null });
    };

    const target = await findTarget(tx, transfer, paidAt);
    if (target.kind === 'none') return unmatched('unknown_account', {}, null);
    if (target.kind === 'ambiguous') return unmatched('ambiguous_account', {}, null);

    const owner = target.kind === 'reserved' ? target.account : target.collection;
    const channel = target.kind === 'reserved' ? 'reserved_va' : 'collection_va';
    const link =
      target.kind === 'reserved'
        ? { workspaceId: owner.workspaceId, reservedAccountId: target.account.id }
        : { workspaceId: owner.workspaceId, collectionId: target.collection.id };
    const refusal = await modeRefusal(tx, owner.workspaceId, transfer, deps.production ?? false);
    if (refusal) return unmatched(refusal, link, channel);
    if (owner.currency !== transfer.currency) return unmatched('currency_mismatch', link, channel);
    if (!(await findWallet(tx, owner.workspaceId, owner.currency))) return unmatched('no_wallet', link, channel);

    if (target.kind === 'reserved') {
      if (target.account.status !== 'active') return unmatched('account_inactive', link, channel);
    } else {
      const c = target.collection;
      // Expiry is judged by when the payer paid, not by when the rail's notification arrived: a
      // collection paid before its expiresAt is credited even if a read has marked it expired since.
      if (!(PAYABLE_STATUSES as readonly string[]).includes(c.status)) return unmatched('collection_not_pending', link, channel);
      if (c.expiresAt <= paidAt) return unmatched('collection_expired', link, channel);
      if (!transfer.amount.equals(c.amount.toString())) return unmatched('amount_mismatch', link, channel);
      // Claims the collection: of two transfers racing into one account, one wins; a read expiring
      // it meanwhile either commits first (the claim then finds it expired and still takes it) or
      // waits for the claim and, finding it no longer pending, expires nothing.
      const claimed = await tx.collection.updateMany({
        where: { id: c.id, status: { in: [...PAYABLE_STATUSES] }, expiresAt: { gt: paidAt } },
        data: { status: 'successful', amountPaid: transfer.amount.toFixed(6), paidAt, providerReference: transfer.providerReference },
      });
      if (claimed.count !== 1) return unmatched('collection_not_pending', link, channel);
    }

    const reference = target.kind === 'reserved' ? target.account.reference : target.collection.reference;
    const { transaction } = await creditWallet(tx, {
      workspaceId: owner.workspaceId,
      currency: owner.currency,
      amount: transfer.amount,
      category: 'collection',
      channel,
      title: 'Bank transfer received',
      description: transfer.narration || `Transfer into ${owner.accountNumber}`,
      provider: transfer.provider,
      providerReference: transfer.providerReference,
      counterpartyName: transfer.senderName ?? null,
      counterpartyAccount: transfer.senderAccountNumber ?? null,
      counterpartyBank: transfer.senderBank ?? null,
      counterpartyEmail: owner.customerEmail ?? null,
      idempotencyKey: `inbound:${transfer.provider}:${transfer.providerReference}`,
      metadata: {
        provider: transfer.provider,
        raw: transfer.raw,
        inbound_payment_id: row.id,
        ...(target.kind === 'reserved' ? { reserved_account_id: target.account.id } : { collection_id: target.collection.id }),
      } as Prisma.InputJsonValue,
    });
    if (target.kind === 'collection') {
      await tx.collection.update({ where: { id: target.collection.id }, data: { ledgerTransactionId: transaction.id } });
    }
    await recordEvent(tx, owner.workspaceId, {
      name: 'collection.successful',
      payload: collectionSuccessfulPayload({
        id: owner.id,
        reference,
        channel,
        amount: formatAmount(transfer.amount),
        currency: owner.currency,
        accountNumber: owner.accountNumber,
        providerReference: transfer.providerReference,
        paidAt,
      }),
    });
    const credited = await tx.inboundPayment.update({ where: { id: row.id }, data: { status: 'credited', ledgerTransactionId: transaction.id, ...link } });
    return outcomeOf(credited, { duplicate: false, channel, transactionReference: transaction.reference });
  }, INBOUND_TRANSACTION_OPTIONS);

  if (outcome.status === 'unmatched' && !outcome.duplicate) {
    deps.logger?.warn(
      {
        inboundPaymentId: outcome.inbound_payment_id,
        provider: outcome.provider,
        providerReference: outcome.provider_reference,
        accountNumber: outcome.account_number,
        amount: outcome.amount,
        currency: outcome.currency,
        reason: outcome.reason,
        workspaceId: outcome.workspace_id,
        livemode: transfer.livemode ?? null,
      },
      'inbound transfer recorded but not credited; an operator should review it',
    );
  } else if (!outcome.duplicate) {
    deps.logger?.info(
      {
        inboundPaymentId: outcome.inbound_payment_id,
        provider: outcome.provider,
        providerReference: outcome.provider_reference,
        workspaceId: outcome.workspace_id,
      },
      'inbound transfer credited',
    );
  }
  return outcome;
}

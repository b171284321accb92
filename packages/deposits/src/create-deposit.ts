import { AppError, formatAmount, type Decimal } from '@cowrie/core';
import type { Channel } from '@cowrie/catalog';
import type { Collection } from '@cowrie/db';
import { CARD_DEPOSITS_UNAVAILABLE, OPEN_BANKING_UNAVAILABLE, requireLiveChannel } from './channel-rules';
import type { DepositsContext } from './context';
import { openCollection } from './open-collection';
import { renderDepositAccount } from './render';
import { ensureBusinessReservedAccount } from './reserved-accounts';
import type { DepositRequest } from './validation';

export interface CreateDepositOptions {
  workspaceId: number;
  /** The deployment's channel catalog (defaults + operator override). */
  channels: readonly Channel[];
  /** OPEN_BANKING_REDIRECT_URL; open banking needs it and a live channel. */
  openBankingRedirectUrl?: string;
}

/** A deposit result. It carries no database id. */
export type DepositResult =
  | { channel: 'collection_va' | 'reserved_va'; status: 'pending' | 'active'; account: ReturnType<typeof renderDepositAccount> }
  | { channel: 'open_banking'; status: 'pending'; redirect_url: string };

/**
 * POST /v1/deposits, per the per-channel rules (docs/accept-deposits.md). The business is
 * always the account holder; customer-specific collections are the
 * collections surface.
 */
export async function createDeposit(ctx: DepositsContext, options: CreateDepositOptions, body: DepositRequest): Promise<DepositResult> {
  // Always refused, whatever else the request says.
  if (body.channel === 'card') throw new AppError('invalid_request', CARD_DEPOSITS_UNAVAILABLE, { details: { field: 'channel' } });
  const currency = body.currency;
  requireLiveChannel(options.channels, body.channel, currency);

  switch (body.channel) {
    case 'open_banking': {
      if (!options.openBankingRedirectUrl) throw new AppError('invalid_request', OPEN_BANKING_UNAVAILABLE, { details: { field: 'channel' } });
      return { channel: 'open_banking', status: 'pending', redirect_url: options.openBankingRedirectUrl };
    }
    case 'reserved_va': {
      const { account } = await ensureBusinessReservedAccount(ctx, { workspaceId: options.workspaceId, currency });
      return { channel: 'reserved_va', status: 'active', account: renderDepositAccount(account) };
    }
    case 'collection_va': {
      const { collection, created } = await openCollection(ctx, {
        workspaceId: options.workspaceId,
        source: 'deposit',
        reference: body.reference,
        amount: body.amount,
        currency,
        expiresInSeconds: body.expires_in,
      });
      const open = created ? collection : repeatedOneOffAccount(collection, { amount: body.amount, currency });
      return { channel: 'collection_va', status: 'pending', account: renderDepositAccount(open) };
    }
  }
}

/**
 * What a repeated `reference` of a one-off account answers: the same account
 * only while its collection is pending and not past `expires_at` (openCollection
 * returns it as it stands now: expireIfDue, the rule of every read, which sends
 * collection.expired once), and only for the same amount and currency. Anything else would tell the
 * client that an account is open that can no longer be credited for what it
 * asks: 400 on `reference`, and no account is opened.
 */
function repeatedOneOffAccount(row: Collection, asked: { amount: Decimal; currency: string }): Collection {
  const refuse = (message: string) => new AppError('invalid_request', message, { details: { field: 'reference' } });
  // One reference namespace for both routes: a customer's collection is not the business's deposit account.
  if (row.source !== 'deposit') throw refuse(`reference ${row.reference} names a customer's collection (POST /v1/collections); use a new reference`);
  const account = `The one-off account of reference ${row.reference}`;
  if (row.status === 'expired') throw refuse(`${account} expired at ${row.expiresAt.toISOString()}; use a new reference`);
  if (row.status === 'successful') throw refuse(`${account} was already paid; use a new reference`);
  if (row.status !== 'pending') throw refuse(`${account} is ${row.status}; use a new reference`);
  const otherAmount = !asked.amount.equals(row.amount.toString());
  const otherCurrency = asked.currency !== row.currency;
  if (otherAmount || otherCurrency) {
    const other = otherAmount && otherCurrency ? 'amount and currency' : otherAmount ? 'amount' : 'currency';
    throw refuse(
      `reference ${row.reference} names a one-off account for ${formatAmount(row.amount)} ${row.currency}; use a new reference for another ${other}`,
    );
  }
  return row;
}

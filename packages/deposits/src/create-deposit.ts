import { AppError } from '@cowrie/core';
import type { Channel } from '@cowrie/catalog';
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
      const { collection } = await openCollection(ctx, {
        workspaceId: options.workspaceId,
        source: 'deposit',
        reference: body.reference,
        amount: body.amount,
        currency,
        expiresInSeconds: body.expires_in,
      });
      return { channel: 'collection_va', status: 'pending', account: renderDepositAccount(collection) };
    }
  }
}

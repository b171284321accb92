import { AppError } from '@cowrie/core';
import type { Channel, ChannelId } from '@cowrie/catalog';

/** The API's exact messages. */
export const CARD_DEPOSITS_UNAVAILABLE = 'Card deposits are not available yet. No card provider is configured.';
export const OPEN_BANKING_UNAVAILABLE = 'Open banking is not available yet.';

const invalid = (field: string, message: string) => new AppError('invalid_request', message, { details: { field } });

/**
 * The channel as the deployment's catalog (defaults + operator override) has
 * it, checked to be live and to support the currency: 400 otherwise. Never
 * decides availability itself.
 */
export function requireLiveChannel(channels: readonly Channel[], id: ChannelId, currency: string): Channel {
  const channel = channels.find((c) => c.id === id);
  if (!channel || channel.status !== 'live') {
    if (id === 'open_banking') throw invalid('channel', OPEN_BANKING_UNAVAILABLE);
    if (id === 'card') throw invalid('channel', CARD_DEPOSITS_UNAVAILABLE);
    throw invalid('channel', `The ${id} channel is not available yet.`);
  }
  if (!channel.currencies.includes(currency)) {
    throw invalid('currency', `${currency} is not supported by the ${id} channel (supported: ${channel.currencies.join(', ')})`);
  }
  return channel;
}

import { readChannelOverride, type ChannelId } from '@cowrie/core';

// The channel ids and the override's rules are in @cowrie/core, where loadConfig checks CHANNELS_OVERRIDE and CHANNELS_FILE.
export { CHANNEL_IDS, type ChannelId } from '@cowrie/core';
export type ChannelStatus = 'live' | 'coming_soon';

export interface Channel {
  id: ChannelId;
  label: string;
  status: ChannelStatus;
  currencies: string[];
}

/** Shipped defaults. */
export const DEFAULT_CHANNELS: readonly Channel[] = [
  { id: 'card', label: 'Card', status: 'coming_soon', currencies: ['NGN'] },
  { id: 'collection_va', label: 'Bank transfer to a one-off account', status: 'live', currencies: ['NGN'] },
  { id: 'reserved_va', label: 'Bank transfer to a reserved account', status: 'live', currencies: ['NGN'] },
  { id: 'open_banking', label: 'Open banking', status: 'coming_soon', currencies: ['NGN'] },
];

/**
 * The deployment's catalog: defaults with the operator's override applied, from
 * CHANNELS_OVERRIDE (JSON text) or CHANNELS_FILE (a JSON file). Throws on a bad
 * override, naming its variable (loadConfig refuses one first), so a typo stops
 * start-up instead of silently changing availability.
 */
export function loadChannelCatalog(source: { CHANNELS_OVERRIDE?: string; CHANNELS_FILE?: string }): Channel[] {
  const override = readChannelOverride(source);
  return DEFAULT_CHANNELS.map((c) => {
    const o = override[c.id] ?? {};
    return {
      ...c,
      ...o,
      currencies: (o.currencies ?? c.currencies).map((cur) => cur.toUpperCase()),
    };
  });
}

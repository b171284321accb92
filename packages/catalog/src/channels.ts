import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const CHANNEL_IDS = ['card', 'collection_va', 'reserved_va', 'open_banking'] as const;
export type ChannelId = (typeof CHANNEL_IDS)[number];
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

const ZChannelOverride = z.partialRecord(
  z.enum(CHANNEL_IDS),
  z
    .object({
      label: z.string().min(1).max(100).optional(),
      status: z.enum(['live', 'coming_soon']).optional(),
      currencies: z
        .array(z.string().regex(/^[A-Za-z]{3,4}$/))
        .min(1)
        .optional(),
    })
    .strict(),
);
export type ChannelOverride = z.infer<typeof ZChannelOverride>;

/**
 * The deployment's catalog: defaults with the operator's override applied, from
 * CHANNELS_OVERRIDE (JSON text) or CHANNELS_FILE (a JSON file). Throws on a bad
 * override so a typo stops start-up instead of silently changing availability.
 */
export function loadChannelCatalog(source: { CHANNELS_OVERRIDE?: string; CHANNELS_FILE?: string }): Channel[] {
  let raw: unknown = {};
  if (source.CHANNELS_FILE) raw = JSON.parse(readFileSync(source.CHANNELS_FILE, 'utf8'));
  if (source.CHANNELS_OVERRIDE) raw = { ...(raw as object), ...JSON.parse(source.CHANNELS_OVERRIDE) };
  const parsed = ZChannelOverride.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`CHANNELS_OVERRIDE/CHANNELS_FILE: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return DEFAULT_CHANNELS.map((c) => {
    const o = parsed.data[c.id] ?? {};
    return {
      ...c,
      ...o,
      currencies: (o.currencies ?? c.currencies).map((cur) => cur.toUpperCase()),
    };
  });
}

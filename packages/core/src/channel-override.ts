import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isWalletCurrency, WALLET_CURRENCIES } from './wallet-currencies';

/** The deposit channels Cowrie has (the catalog of @cowrie/catalog describes each). */
export const CHANNEL_IDS = ['card', 'collection_va', 'reserved_va', 'open_banking'] as const;
export type ChannelId = (typeof CHANNEL_IDS)[number];

/**
 * The operator's override of the deposit channel catalog, as CHANNELS_OVERRIDE
 * (JSON text) and the file CHANNELS_FILE names each hold it: some channels,
 * each with some of its fields, each currency one of the wallet catalog's.
 * Here rather than in @cowrie/catalog so that loadConfig refuses a bad one by
 * name, as the gateway would at start.
 */
const ZChannelOverride = z.partialRecord(
  z.enum(CHANNEL_IDS),
  z
    .object({
      label: z.string().min(1).max(100).optional(),
      status: z.enum(['live', 'coming_soon']).optional(),
      // A currency no wallet holds would open deposits that can never be credited (the transfer in unmatched, no_wallet).
      currencies: z
        .array(
          z.string().refine(isWalletCurrency, {
            error: (issue) => `${String(issue.input).toUpperCase()} is not in the wallet catalog (${WALLET_CURRENCIES.join(', ')})`,
          }),
        )
        .min(1)
        .optional(),
    })
    .strict(),
);
export type ChannelOverride = z.infer<typeof ZChannelOverride>;

type ChannelOverrideVariable = 'CHANNELS_OVERRIDE' | 'CHANNELS_FILE';

/**
 * One source of the override: CHANNELS_OVERRIDE's JSON text, or the file
 * CHANNELS_FILE names. Its override, or what is wrong with it (without the
 * variable's name; never the value itself).
 */
export function parseChannelOverride(variable: ChannelOverrideVariable, value: string): { override: ChannelOverride } | { problem: string } {
  let text = value;
  if (variable === 'CHANNELS_FILE') {
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      return { problem: `cannot be read (${(err as Error).message})` };
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { problem: `is not JSON (${(err as Error).message})` };
  }
  const parsed = ZChannelOverride.safeParse(json);
  if (!parsed.success) {
    const said = parsed.error.issues.map((i) =>
      i.path.length ? `${i.path.join('.')}: ${i.message}` : `${i.message} (the channels are ${CHANNEL_IDS.join(', ')})`,
    );
    return { problem: said.join('; ') };
  }
  return { override: parsed.data };
}

/** The override of both sources, CHANNELS_OVERRIDE's channels over CHANNELS_FILE's; throws naming the variable of a bad one. */
export function readChannelOverride(source: { CHANNELS_OVERRIDE?: string; CHANNELS_FILE?: string }): ChannelOverride {
  let merged: ChannelOverride = {};
  for (const variable of ['CHANNELS_FILE', 'CHANNELS_OVERRIDE'] as const) {
    const value = source[variable];
    if (!value) continue;
    const result = parseChannelOverride(variable, value);
    if ('problem' in result) throw new Error(`${variable}: ${result.problem}`);
    merged = { ...merged, ...result.override };
  }
  return merged;
}

import type { LedgerTransaction } from '@cowrie/db';
import type { PayoutRoute } from '@cowrie/rails';
import { asObject } from '@cowrie/core';

/**
 * A payout's route, as recorded on it at creation (`metadata.rail_route`:
 * its rails in order and the rule that chose them). A payout of a one-rail
 * deployment records none: its route is its provider alone.
 */
export function payoutRoute(row: Pick<LedgerTransaction, 'metadata' | 'provider'>): PayoutRoute {
  const recorded = asObject(asObject(row.metadata).rail_route);
  const rails = recorded.rails;
  if (Array.isArray(rails) && rails.length > 0 && rails.every((r) => typeof r === 'string'))
    return { rails: rails as string[], rule: typeof recorded.rule === 'string' ? recorded.rule : null };
  return { rails: [row.provider], rule: null };
}

/** What a new payout's metadata records of its route: nothing when it is one rail chosen by no rule (one-rail deployments pay nothing). */
export function routeMetadata(route: PayoutRoute): Record<string, unknown> {
  return route.rails.length > 1 || route.rule ? { rail_route: { rails: route.rails, rule: route.rule } } : {};
}

/**
 * The reference a payout is sent to `rail` with: its own on the first rail
 * of its route, `<reference>-<n>` on the n-th, so each rail's attempt has a
 * reference of its own and asking one rail never finds another's transfer.
 */
export function railReferenceOf(row: Pick<LedgerTransaction, 'metadata' | 'provider' | 'reference'>, rail: string = row.provider): string {
  const index = payoutRoute(row).rails.indexOf(rail);
  return index <= 0 ? row.reference : `${row.reference}-${index + 1}`;
}

/** The rail after the payout's current one in its route, or null when it is the last. */
export function nextRailOf(row: Pick<LedgerTransaction, 'metadata' | 'provider'>): string | null {
  const { rails } = payoutRoute(row);
  const index = rails.indexOf(row.provider);
  return index >= 0 && index + 1 < rails.length ? rails[index + 1]! : null;
}

/** The payout reference an attempt's reference belongs to (`snd_…-2` → `snd_…`). */
export function payoutReferenceOf(railReference: string): string {
  return railReference.replace(/-\d+$/, '');
}

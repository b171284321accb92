import { randomBytes } from 'node:crypto';

/**
 * A service-generated reference, the one maker of them: `snd_` payouts and
 * `crd_` credits (ledger rows), `col_` one-off collections and `rsv_`
 * reserved accounts (their own rows and their rail references).
 */
export function newReference(prefix: 'snd' | 'crd' | 'col' | 'rsv'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

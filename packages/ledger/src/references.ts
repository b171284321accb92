import { randomBytes } from 'node:crypto';

/** A service-generated ledger reference: `snd_` for payouts, `crd_` for credits. */
export function newReference(prefix: 'snd' | 'crd'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

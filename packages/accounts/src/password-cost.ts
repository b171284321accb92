import { randomBytes } from 'node:crypto';

// OWASP's current minimum for scrypt: N=2^17, r=8, p=1: ~128 MiB and a few
// hundred ms per hash, slow for guessing, fine for a sign-in.
const PRODUCTION_PARAMS = { N: 131072, r: 8, p: 1 };
let params = PRODUCTION_PARAMS;

/** The scrypt parameters new hashes are made with (and older ones remade to). */
export const passwordHashParams = () => params;

/**
 * The hash of a random password nobody kept, made with today's parameters:
 * verified when a sign-in names an unknown email, so that costs one hash
 * like a wrong password does. Made ahead of time, not at the first unknown
 * email (which would then cost two hashes, and tell itself apart).
 */
const PRODUCTION_DECOY_HASH = 'scrypt$131072$8$1$r9VdqpdMg9CrTbap/VZS4Q==$UOUXAAHamqwDVfqeqmIoyePbrFUkcYXnbDhYlNT6ggg=';
// Parameters changed without a new decoy: an unknown email would be checked faster than a known one.
if (PRODUCTION_DECOY_HASH.split('$').slice(1, 4).join('$') !== [PRODUCTION_PARAMS.N, PRODUCTION_PARAMS.r, PRODUCTION_PARAMS.p].join('$')) {
  throw new Error('PRODUCTION_DECOY_HASH must be remade with the current scrypt parameters (PRODUCTION_PARAMS)');
}
let decoyHash = PRODUCTION_DECOY_HASH;
export const decoyPasswordHash = () => decoyHash;

/**
 * For tests only: exported by `@cowrie/accounts/testing`, not by the
 * package's entry, and called by no service. `test` makes new hashes with
 * N=2^10 instead of 2^17 (the same scrypt at a 128th of the work, with a
 * decoy to match), so a test that signs users in does not spend a core for
 * a few hundred ms per hash; `production` puts today's parameters back.
 * Tests of the cost itself (the rehash to today's parameters, the
 * concurrency limit, responsiveness under a burst) keep `production`.
 */
export function setPasswordHashCost(cost: 'production' | 'test'): void {
  params = cost === 'production' ? PRODUCTION_PARAMS : { N: 1024, r: 8, p: 1 };
  decoyHash =
    cost === 'production'
      ? PRODUCTION_DECOY_HASH
      : ['scrypt', params.N, params.r, params.p, randomBytes(16).toString('base64'), randomBytes(32).toString('base64')].join('$');
}

import { z } from 'zod';
import { named } from '../../openapi/schemas';

// Liveness and readiness: their answers, and a payout rail's breaker (also GET /payout-rails).

const ZChecks = z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional(), warning: z.string().optional() }));
const ZRails = z.object({ payouts: z.string(), collections: z.string(), sms: z.string(), email: z.string() });
const ZRailsByMode = z
  .object({ live: ZRails, test: ZRails })
  .meta({ description: 'The rail or code provider each kind of work uses in each mode (test mode: always the sandbox)' });
export const ZHealth = named('Health', z.object({ status: z.literal('ok') }));
/** One payout rail's breaker, as /readyz and GET /payout-rails show it. */
const payoutRailStateShape = {
  rail: z.string(),
  state: z.enum(['closed', 'open', 'half_open']),
  failures: z.number().int(),
  open_until: z.string().nullable(),
};
export const ZPayoutRailState = named(
  'PayoutRailState',
  z.object(payoutRailStateShape).meta({
    description:
      "A payout rail's breaker: closed (used), open (passed over until open_until after failing on its own `failures` times in a row), half_open (its cool-down is over: one probe payout may try it)",
  }),
);
const ZPayoutRailHealth = z.array(z.object(payoutRailStateShape)).meta({
  description:
    "With several payout rails (PAYOUT_RAILS), each one's breaker: closed (used), open (passed over until open_until after failing on its own), half_open (one probe payout may try it)",
});
export const ZReadiness = named(
  'Readiness',
  z.object({ status: z.literal('ready'), checks: ZChecks, rails: ZRailsByMode, payout_rails: ZPayoutRailHealth.optional() }),
);

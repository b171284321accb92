import { z } from 'zod';
import { defineQueue, jobOf, recordJobId } from '@cowrie/core';
import type { PayoutOutcome } from './payout-close';

export const payoutsQueue = defineQueue(
  'payouts',
  {
    // Sends one processing ledger transaction to its rail and settles it.
    'payout.execute': jobOf<PayoutOutcome>()(z.object({ transactionId: z.number().int().positive() })),
  },
  // A rail call that failed ambiguously is retried after re-querying the rail; a
  // few attempts with backoff ride out a restart without hammering the provider.
  { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
);

/** The job id of a payout's `payout.execute`: `payout-<id>-<reference>` (recordJobId). */
export const payoutJobId = (payout: { id: number; reference: string }) => recordJobId('payout', payout);

import { z } from 'zod';
import type { PayoutAttemptView, TransactionEvent } from '@cowrie/payouts';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';
import { ZTransaction } from '../payouts/schemas';

// The dashboard's balances and ledger: the requests and answers of their routes
// (the balance, transaction and filter schemas are /v1's, beside its routes).

export { ZBalance, ZTransaction, ZTransactionFilters, ZTransactionsQuery } from '../payouts/schemas';

const ZTransactionEvent = named(
  'TransactionEvent',
  responseOf<TransactionEvent>()(
    z.object({
      id: z.number().int().meta({ description: 'The outbox event id' }),
      event: z.string().meta({ description: 'transfer.completed, transfer.failed, transfer.reversed or collection.successful' }),
      created_at: ZTimestamp,
      deliveries: z.array(
        z.object({
          id: z.number().int().meta({ description: 'The delivery log row (GET /webhook-deliveries/{id})' }),
          endpoint_id: z.number().int(),
          dispatch: z.number().int(),
          ok: z.boolean().nullable().meta({ description: 'null while the delivery is pending' }),
          status_code: z.number().int().nullable(),
          created_at: ZTimestamp,
        }),
      ),
    }),
  ),
);

const ZPayoutAttempt = named(
  'PayoutAttempt',
  responseOf<PayoutAttemptView>()(
    z.object({
      rail: z.string().meta({ description: 'The payout rail of this attempt' }),
      reference: z
        .string()
        .meta({ description: 'The reference it was sent with at that rail (the payout’s own on its first rail, `<reference>-<n>` on the n-th)' }),
      outcome: z.string().meta({
        description:
          'refused (the rail certainly did not take it), failed (the rail’s own failure), skipped (its breaker was open): it moved to the next rail; for the rail it stayed on, the payout’s status; found_after_move or found_after_fail: the rail showed the transfer after the payout moved on or failed (an operator settles it with the rail)',
      }),
      reason: z.string().nullable(),
      created_at: ZTimestamp,
    }),
  ),
);

export const ZTransactionDetail = named(
  'TransactionDetail',
  z.object({
    transaction: ZTransaction,
    events: z.array(ZTransactionEvent),
    attempts: z.array(ZPayoutAttempt).meta({ description: 'A payout’s rail attempts, in order (several when it moved to another rail); empty for credits' }),
  }),
);

export const ZTransactionReferenceParams = z.object({ reference: z.string().max(100).meta({ description: "The transaction's reference" }) });

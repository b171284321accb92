import { z } from 'zod';
import { transactionWithEvents, type PayoutAttemptView, type TransactionEvent } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';
import { ZTimestamp, named, responseOf } from '../openapi/schemas';
import { ZTransaction } from '../api/payouts/schemas';

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
          'refused (the rail certainly did not take it), failed (the rail’s own failure), skipped (its breaker was open): it moved to the next rail; for the rail it stayed on, the payout’s status',
      }),
      reason: z.string().nullable(),
      created_at: ZTimestamp,
    }),
  ),
);

const ZTransactionDetail = named(
  'TransactionDetail',
  z.object({
    transaction: ZTransaction,
    events: z.array(ZTransactionEvent),
    attempts: z.array(ZPayoutAttempt).meta({ description: 'A payout’s rail attempts, in order (several when it moved to another rail); empty for credits' }),
  }),
);

/** One transaction for the dashboard's detail view: every field, and the events it produced with their deliveries. */
export function registerDashboardTransactionDetailRoute(app: RouteMount, deps: GatewayDeps) {
  app.route(
    {
      method: 'get',
      path: '/transactions/:reference',
      operationId: 'getSessionTransaction',
      summary: 'One transaction of the signed-in workspace, with the events it produced',
      tag: 'Balances and ledger (dashboard)',
      auth: { kind: 'session' },
      request: { params: z.object({ reference: z.string().max(100).meta({ description: "The transaction's reference" }) }) },
      responses: {
        200: {
          description: 'The transaction and its events',
          data: ZTransactionDetail,
        },
        404: { description: 'not_found: no transaction with this reference in this workspace' },
      },
    },
    async ({ params }, req, res) => {
      sendData(req, res, 200, await transactionWithEvents(deps.db, sessionOf(req).workspaceId, params.reference));
    },
  );
}

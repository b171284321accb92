import { z } from 'zod';
import { listBalances, listTransactions } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sendPage, sessionOf } from '../http/respond';
import { ZPageMeta } from '../openapi/schemas';
import { ZBalance, ZTransaction, ZTransactionsQuery } from '../api/payouts/schemas';

/**
 * The balances and the ledger for the dashboard: the same reads as GET /v1/balances
 * and GET /v1/transactions (the same package functions and schemas), with a
 * session instead of an API key, of the workspace its Cowrie-Mode chose.
 */
export function registerDashboardLedgerRoutes(app: RouteMount, deps: GatewayDeps) {
  const auth = { kind: 'session' } as const;
  const tag = 'Balances and ledger (dashboard)';

  app.route(
    {
      method: 'get',
      path: '/balances',
      operationId: 'listSessionBalances',
      summary: "The signed-in workspace's wallet balances",
      tag,
      auth,
      responses: { 200: { description: 'One row per wallet', data: z.array(ZBalance) } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await listBalances(deps.db, sessionOf(req).workspaceId));
    },
  );

  app.route(
    {
      method: 'get',
      path: '/transactions',
      operationId: 'listSessionTransactions',
      summary: "The signed-in workspace's ledger transactions, newest first",
      description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
      tag,
      auth,
      request: { query: ZTransactionsQuery },
      responses: { 200: { description: 'A page of transactions', data: z.array(ZTransaction), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await listTransactions(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );
}

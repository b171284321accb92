import { transactionsCsv } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendCsv, sessionOf } from '../http/respond';
import { ZTransactionFilters } from '../api/payouts/schemas';

/**
 * Downloads for the dashboard: CSV files of the signed-in workspace's data (of
 * the side its Cowrie-Mode chose), written as they are read, so an export of
 * any size holds one page of rows in memory.
 */
export function registerDashboardExportRoutes(app: RouteMount, deps: GatewayDeps) {
  app.route(
    {
      method: 'get',
      path: '/transactions/export',
      operationId: 'exportSessionTransactions',
      summary: "The signed-in workspace's ledger transactions as CSV",
      description:
        'Every transaction the filters keep (the filters of GET /transactions), newest first, as `text/csv` with a header line. ' +
        "Amounts are the API's decimal strings; a text cell that a spreadsheet would run as a formula starts with `'`.",
      tag: 'Balances and ledger (dashboard)',
      auth: { kind: 'session' },
      request: { query: ZTransactionFilters },
      responses: { 200: { description: 'The CSV file', csv: true } },
    },
    async ({ query }, req, res) => {
      await sendCsv(req, res, 'transactions', transactionsCsv(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );
}

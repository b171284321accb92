import { once } from 'node:events';
import { transactionsCsv } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sessionOf } from '../http/respond';
import { ZTransactionFilters } from './payouts';

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
      const rows = transactionsCsv(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query });
      // The header and the first page are read before anything is sent, so a failure there still gets the error envelope.
      const first = await rows.next();
      res.status(200).set({
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="transactions-${new Date().toISOString().slice(0, 10)}.csv"`,
        'Cache-Control': 'no-store',
      });
      try {
        for (let chunk = first; !chunk.done; chunk = await rows.next()) {
          if (res.destroyed) return;
          if (!res.write(chunk.value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
        }
        res.end();
      } catch (err) {
        // Half a file was sent: the connection is cut so the client cannot take it for the whole.
        req.log.error({ err }, 'transactions export failed after it started');
        res.destroy();
      } finally {
        await rows.return(undefined);
      }
    },
  );
}

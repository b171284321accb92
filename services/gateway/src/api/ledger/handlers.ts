import { listBalances, listTransactions, transactionsCsv, transactionWithEvents } from '@cowrie/payouts';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendCsv, sendData, sendPage, sessionOf } from '../../http/respond';
import type { ledgerDashboardSpecs } from './specs';

/** One handler per dashboard ledger route (ledgerDashboardSpecs): one @cowrie/payouts read of the session's workspace each. */
export function createLedgerDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof ledgerDashboardSpecs> {
  return {
    async listSessionBalances(_input, req, res) {
      sendData(req, res, 200, await listBalances(deps.db, sessionOf(req).workspaceId));
    },

    async listSessionTransactions({ query }, req, res) {
      sendPage(req, res, await listTransactions(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },

    async exportSessionTransactions({ query }, req, res) {
      await sendCsv(req, res, 'transactions', transactionsCsv(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },

    async getSessionTransaction({ params }, req, res) {
      sendData(req, res, 200, await transactionWithEvents(deps.db, sessionOf(req).workspaceId, params.reference));
    },
  };
}

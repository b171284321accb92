import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZPageMeta } from '../../openapi/schemas';
import { ZBalance, ZTransaction, ZTransactionDetail, ZTransactionFilters, ZTransactionReferenceParams, ZTransactionsQuery } from './schemas';

const auth = { kind: 'session' } as const;
const tag = 'Balances and ledger (dashboard)';

/**
 * The balances and the ledger for the dashboard: the same reads as GET /v1/balances
 * and GET /v1/transactions (the same package functions and schemas), with a
 * session instead of an API key, of the workspace its Cowrie-Mode chose; keyed
 * by their operationId, in the order they are mounted.
 */
export const ledgerDashboardSpecs = {
  listSessionBalances: {
    method: 'get',
    path: '/balances',
    operationId: 'listSessionBalances',
    summary: "The signed-in workspace's wallet balances",
    tag,
    auth,
    responses: { 200: { description: 'One row per wallet', data: z.array(ZBalance) } },
  },
  listSessionTransactions: {
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
  // A download: a CSV file of the workspace's data, written as it is read, so an
  // export of any size holds one page of rows in memory.
  exportSessionTransactions: {
    method: 'get',
    path: '/transactions/export',
    operationId: 'exportSessionTransactions',
    summary: "The signed-in workspace's ledger transactions as CSV",
    description:
      'Every transaction the filters keep (the filters of GET /transactions), newest first, as `text/csv` with a header line. ' +
      "Amounts are the API's decimal strings; a text cell that a spreadsheet would run as a formula starts with `'`.",
    tag,
    auth,
    request: { query: ZTransactionFilters },
    responses: { 200: { description: 'The CSV file', csv: true } },
  },
  // After the export: /transactions/export is not a reference.
  getSessionTransaction: {
    method: 'get',
    path: '/transactions/:reference',
    operationId: 'getSessionTransaction',
    summary: 'One transaction of the signed-in workspace, with the events it produced',
    tag,
    auth,
    request: { params: ZTransactionReferenceParams },
    responses: {
      200: {
        description: 'The transaction and its events',
        data: ZTransactionDetail,
      },
      404: { description: 'not_found: no transaction with this reference in this workspace' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;

import { z } from 'zod';
import { COLLECTION_STATUSES, listCollections, listDepositPayments, type DepositPayment } from '@cowrie/deposits';
import { idField } from '@cowrie/core';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendPage, sessionOf } from '../http/respond';
import { PAGED_LIST, ZAmount, ZPageMeta, ZTimestamp, named, pageQueryFields, responseOf } from '../openapi/schemas';
import { ZCollection, ZListQuery, ZReservedAccount, reservedAccountsOf } from './deposits';

const ZDepositPayment = named(
  'DepositPayment',
  responseOf<DepositPayment>()(
    z.object({
      id: z.number().int(),
      status: z.enum(['credited', 'unmatched']).meta({ description: 'credited to the wallet, or held back (see `reason`)' }),
      reason: z.string().nullable().meta({ description: 'Why a transfer credited nothing: a wrong amount or currency, a collection already paid or expired' }),
      amount: ZAmount,
      currency: z.string(),
      account_number: z.string().nullable(),
      collection_id: z.number().int().nullable(),
      reserved_account_id: z.number().int().nullable(),
      transaction_reference: z.string().nullable().meta({ description: 'The credit in the ledger, once credited' }),
      provider: z.string(),
      provider_reference: z.string(),
      sender_name: z.string().nullable(),
      sender_bank: z.string().nullable(),
      narration: z.string().nullable(),
      created_at: ZTimestamp,
    }),
  ),
);

/**
 * The deposits of the signed-in workspace (the side its Cowrie-Mode chose)
 * for the dashboard: its one-off collections, its reserved accounts, and the
 * transfers that came into them.
 */
export function registerDashboardDepositRoutes(app: RouteMount, deps: GatewayDeps) {
  const auth = { kind: 'session' } as const;
  const tag = 'Deposits (dashboard)';

  app.route(
    {
      method: 'get',
      path: '/collections',
      operationId: 'listSessionCollections',
      summary: "The signed-in workspace's one-off collections, newest first",
      description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
      tag,
      auth,
      request: {
        query: z.object({ status: z.enum(COLLECTION_STATUSES).optional().meta({ description: 'Only collections with this status' }), ...pageQueryFields }),
      },
      responses: { 200: { description: 'A page of collections', data: z.array(ZCollection), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await listCollections(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },
  );

  app.route(
    {
      method: 'get',
      path: '/reserved-accounts',
      operationId: 'listSessionReservedAccounts',
      summary: "The signed-in workspace's reserved accounts, newest first",
      tag,
      auth,
      request: { query: ZListQuery },
      description: PAGED_LIST,
      responses: { 200: { description: 'Reserved accounts, newest first', data: z.array(ZReservedAccount), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await reservedAccountsOf(deps, sessionOf(req).workspaceId, query));
    },
  );

  app.route(
    {
      method: 'get',
      path: '/deposit-payments',
      operationId: 'listSessionDepositPayments',
      summary: "Transfers into the signed-in workspace's accounts, newest first",
      description: 'Credited ones and the ones held back, with why. Cursor paginated.',
      tag,
      auth,
      request: {
        query: z.object({
          collection_id: z.coerce.number().pipe(idField).optional().meta({ description: 'Only the transfers into this collection' }),
          reserved_account_id: z.coerce.number().pipe(idField).optional().meta({ description: 'Only the transfers into this reserved account' }),
          ...pageQueryFields,
        }),
      },
      responses: { 200: { description: 'A page of transfers', data: z.array(ZDepositPayment), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(
        req,
        res,
        await listDepositPayments(deps.db, {
          workspaceId: sessionOf(req).workspaceId,
          collectionId: query.collection_id,
          reservedAccountId: query.reserved_account_id,
          limit: query.limit,
          cursor: query.cursor,
        }),
      );
    },
  );
}

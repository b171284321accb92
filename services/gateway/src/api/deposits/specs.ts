import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { PAGED_LIST, ZIdParams, ZPageMeta } from '../../openapi/schemas';
import {
  ZCollection,
  ZCreateCollectionBody,
  ZCreateDepositBody,
  ZCreateReservedAccountBody,
  ZDepositPayment,
  ZDepositResult,
  ZListCollectionsQuery,
  ZListDepositPaymentsQuery,
  ZListQuery,
  ZReservedAccount,
} from './schemas';

const collectionErrors = {
  400: { description: 'invalid_request: unknown or unavailable channel, unsupported currency, missing or invalid field' },
  503: { description: 'provider_error: the collection rail failed while opening the account' },
};

/** POST /v1/deposits, the collections surface and the reserved-accounts surface, with an API key: keyed by their operationId, in the order they are mounted. */
export const depositApiSpecs = {
  createDeposit: {
    method: 'post',
    path: '/deposits',
    operationId: 'createDeposit',
    summary: 'Open a deposit surface for the business',
    description:
      'collection_va opens a one-off account (status pending, with expires_at); a repeated reference returns it while it is pending and not expired, for the same amount and currency, and is 400 otherwise; reserved_va returns the persistent account (status active); open_banking returns a redirect_url when live; card is always refused. Read GET /v1/channels for availability.',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'collections:write' },
    request: { body: ZCreateDepositBody },
    responses: {
      201: { description: 'The deposit surface (no database id)', data: ZDepositResult },
      ...collectionErrors,
      400: {
        description: `${collectionErrors[400].description}; a repeated reference whose one-off account expired or was paid, or that asks for another amount or currency`,
      },
    },
  },
  createCollection: {
    method: 'post',
    path: '/collections',
    operationId: 'createCollection',
    summary: 'Open a one-off account for a customer',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'collections:write' },
    request: { body: ZCreateCollectionBody },
    responses: {
      201: { description: 'A new collection', data: ZCollection },
      200: { description: 'The existing collection with this reference', data: ZCollection },
      ...collectionErrors,
    },
  },
  getCollection: {
    method: 'get',
    path: '/collections/:id',
    operationId: 'getCollection',
    summary: 'Read a collection',
    description: 'A pending collection read after its expiry becomes expired (and sends collection.expired).',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'read' },
    request: { params: ZIdParams },
    responses: { 200: { description: 'The collection', data: ZCollection }, 404: { description: 'not_found' } },
  },
  createReservedAccount: {
    method: 'post',
    path: '/reserved-accounts',
    operationId: 'createReservedAccount',
    summary: 'Open a persistent account for a customer',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'collections:write' },
    request: { body: ZCreateReservedAccountBody },
    responses: {
      201: { description: 'A new reserved account', data: ZReservedAccount },
      200: { description: 'The existing account with this reference', data: ZReservedAccount },
      ...collectionErrors,
    },
  },
  listReservedAccounts: {
    method: 'get',
    path: '/reserved-accounts',
    operationId: 'listReservedAccounts',
    summary: 'List reserved accounts',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'read' },
    request: { query: ZListQuery },
    description: PAGED_LIST,
    responses: { 200: { description: 'Reserved accounts, newest first', data: z.array(ZReservedAccount), meta: ZPageMeta } },
  },
  getReservedAccount: {
    method: 'get',
    path: '/reserved-accounts/:id',
    operationId: 'getReservedAccount',
    summary: 'Read a reserved account',
    tag: 'Deposits',
    auth: { kind: 'api_key', scope: 'read' },
    request: { params: ZIdParams },
    responses: { 200: { description: 'The reserved account', data: ZReservedAccount }, 404: { description: 'not_found' } },
  },
} satisfies Record<string, AnyRouteSpec>;

const auth = { kind: 'session' } as const;
const tag = 'Deposits (dashboard)';

/**
 * The deposits of the signed-in workspace (the side its Cowrie-Mode chose)
 * for the dashboard: its one-off collections, its reserved accounts, and the
 * transfers that came into them.
 */
export const depositDashboardSpecs = {
  listSessionCollections: {
    method: 'get',
    path: '/collections',
    operationId: 'listSessionCollections',
    summary: "The signed-in workspace's one-off collections, newest first",
    description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
    tag,
    auth,
    request: { query: ZListCollectionsQuery },
    responses: { 200: { description: 'A page of collections', data: z.array(ZCollection), meta: ZPageMeta } },
  },
  listSessionReservedAccounts: {
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
  listSessionDepositPayments: {
    method: 'get',
    path: '/deposit-payments',
    operationId: 'listSessionDepositPayments',
    summary: "Transfers into the signed-in workspace's accounts, newest first",
    description: 'Credited ones and the ones held back, with why. Cursor paginated.',
    tag,
    auth,
    request: { query: ZListDepositPaymentsQuery },
    responses: { 200: { description: 'A page of transfers', data: z.array(ZDepositPayment), meta: ZPageMeta } },
  },
} satisfies Record<string, AnyRouteSpec>;

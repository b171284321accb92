import type { Request } from 'express';
import { z } from 'zod';
import { collectionRailTimeoutMs } from '@cowrie/collection-rails';
import { currencyCodeField } from '@cowrie/core';
import {
  createCustomerReservedAccount,
  createDeposit,
  listReservedAccounts,
  RESERVED_ACCOUNT_PAGE_SIZES,
  openCollection,
  readCollection,
  renderCollection,
  renderReservedAccount,
  requireLiveChannel,
  getReservedAccount,
  ZCollectionRequest,
  ZDepositRequest,
  ZReservedAccountRequest,
  type DepositsContext,
  type DepositResult,
} from '@cowrie/deposits';
import { ZCustomer as ZCustomerData } from '@cowrie/events';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { apiKeyOf, sendData, sendPage } from '../http/respond';
import { PAGED_LIST, ZAmount, ZIdParams, ZPageMeta, ZTimestamp, named, pageQueryFieldsOf, responseOf } from '../openapi/schemas';

export const ZListQuery = z.object({
  ...pageQueryFieldsOf(RESERVED_ACCOUNT_PAGE_SIZES, 'clamped'),
  currency: currencyCodeField.optional(),
  customer_email: z.string().max(254).optional().meta({ description: "Only this customer's accounts (case-insensitive)" }),
});

const ZDepositAccount = named(
  'DepositAccount',
  z.object({
    bank: z.string(),
    bank_code: z.string(),
    account_number: z.string(),
    account_name: z.string(),
    expires_at: ZTimestamp.optional().meta({ description: 'One-off accounts only' }),
  }),
);

/** A reserved account's customer (the webhook events' catalog declares it: reserved_account.created carries one). */
const ZCustomer = named('Customer', ZCustomerData);

const ZDepositResult = named(
  'DepositSurface',
  responseOf<DepositResult>()(
    z.union([
      z.object({ channel: z.enum(['collection_va', 'reserved_va']), status: z.enum(['pending', 'active']), account: ZDepositAccount }),
      z.object({ channel: z.literal('open_banking'), status: z.literal('pending'), redirect_url: z.string() }),
    ]),
  ),
);

export const ZCollection = named(
  'Collection',
  responseOf<ReturnType<typeof renderCollection>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      status: z.string().meta({ description: 'pending, successful or expired' }),
      currency: z.string(),
      amount: ZAmount,
      amount_paid: ZAmount.nullable(),
      customer: ZCustomer.nullable(),
      account: ZDepositAccount,
      expires_at: ZTimestamp,
      paid_at: ZTimestamp.nullable(),
      provider: z.string(),
      provider_reference: z.string().nullable(),
      created_at: ZTimestamp,
      updated_at: ZTimestamp,
    }),
  ),
);

export const ZReservedAccount = named(
  'ReservedAccount',
  responseOf<ReturnType<typeof renderReservedAccount>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      holder: z.string().meta({ description: 'business or customer' }),
      status: z.string(),
      currency: z.string(),
      customer: ZCustomer,
      account: ZDepositAccount,
      provider: z.string(),
      created_at: ZTimestamp,
    }),
  ),
);

const collectionErrors = {
  400: { description: 'invalid_request: unknown or unavailable channel, unsupported currency, missing or invalid field' },
  503: { description: 'provider_error: the collection rail failed while opening the account' },
};

/** POST /v1/deposits, the collections surface and the reserved-accounts surface. */
/** GET /reserved-accounts (/v1 and the dashboard's): newest first, the limit clamped rather than refused, like the delivery log's; cursor paginated. */
export async function reservedAccountsOf(deps: Pick<GatewayDeps, 'db'>, workspaceId: number, query: z.output<typeof ZListQuery>) {
  const page = await listReservedAccounts({ db: deps.db }, workspaceId, {
    limit: query.limit,
    cursor: query.cursor,
    currency: query.currency?.toUpperCase(),
    customerEmail: query.customer_email,
  });
  return { items: page.items.map(renderReservedAccount), nextCursor: page.nextCursor };
}

export function registerDepositRoutes(v1: RouteMount, deps: GatewayDeps) {
  // A request acts on its key's mode: a test key opens accounts on the sandbox rail only.
  const rails = deps.collectionRails;
  const ctxOf = (req: Request): DepositsContext => ({
    db: deps.db,
    rail: rails[apiKeyOf(req).mode],
    logger: req.log,
    railTimeoutMs: collectionRailTimeoutMs(deps.config),
  });

  v1.route(
    {
      method: 'post',
      path: '/deposits',
      operationId: 'createDeposit',
      summary: 'Open a deposit surface for the business',
      description:
        'collection_va opens a one-off account (status pending, with expires_at); reserved_va returns the persistent account (status active); open_banking returns a redirect_url when live; card is always refused. Read GET /v1/channels for availability.',
      tag: 'Deposits',
      auth: { kind: 'api_key', scope: 'collections:write' },
      request: { body: named('CreateDepositRequest', ZDepositRequest) },
      responses: { 201: { description: 'The deposit surface (no database id)', data: ZDepositResult }, ...collectionErrors },
    },
    async ({ body }, req, res) => {
      const result = await createDeposit(
        ctxOf(req),
        { workspaceId: apiKeyOf(req).workspaceId, channels: deps.channels, openBankingRedirectUrl: deps.config.OPEN_BANKING_REDIRECT_URL },
        body,
      );
      sendData(req, res, 201, result);
    },
  );

  v1.route(
    {
      method: 'post',
      path: '/collections',
      operationId: 'createCollection',
      summary: 'Open a one-off account for a customer',
      tag: 'Deposits',
      auth: { kind: 'api_key', scope: 'collections:write' },
      request: { body: named('CreateCollectionRequest', ZCollectionRequest) },
      responses: {
        201: { description: 'A new collection', data: ZCollection },
        200: { description: 'The existing collection with this reference', data: ZCollection },
        ...collectionErrors,
      },
    },
    async ({ body }, req, res) => {
      requireLiveChannel(deps.channels, 'collection_va', body.currency);
      const { collection, created } = await openCollection(ctxOf(req), {
        workspaceId: apiKeyOf(req).workspaceId,
        source: 'collection',
        reference: body.reference,
        amount: body.amount,
        currency: body.currency,
        expiresInSeconds: body.expires_in,
        customer: { name: body.customer_name, email: body.customer_email },
      });
      sendData(req, res, created ? 201 : 200, renderCollection(collection));
    },
  );

  v1.route(
    {
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
    async ({ params }, req, res) => {
      const collection = await readCollection({ db: deps.db }, apiKeyOf(req).workspaceId, params.id);
      sendData(req, res, 200, renderCollection(collection));
    },
  );

  v1.route(
    {
      method: 'post',
      path: '/reserved-accounts',
      operationId: 'createReservedAccount',
      summary: 'Open a persistent account for a customer',
      tag: 'Deposits',
      auth: { kind: 'api_key', scope: 'collections:write' },
      request: { body: named('CreateReservedAccountRequest', ZReservedAccountRequest) },
      responses: {
        201: { description: 'A new reserved account', data: ZReservedAccount },
        200: { description: 'The existing account with this reference', data: ZReservedAccount },
        ...collectionErrors,
      },
    },
    async ({ body }, req, res) => {
      requireLiveChannel(deps.channels, 'reserved_va', body.currency);
      const { account, created } = await createCustomerReservedAccount(ctxOf(req), {
        workspaceId: apiKeyOf(req).workspaceId,
        currency: body.currency,
        customer: { name: body.customer_name, email: body.customer_email },
        reference: body.reference,
      });
      sendData(req, res, created ? 201 : 200, renderReservedAccount(account));
    },
  );

  v1.route(
    {
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
    async ({ query }, req, res) => {
      sendPage(req, res, await reservedAccountsOf(deps, apiKeyOf(req).workspaceId, query));
    },
  );

  v1.route(
    {
      method: 'get',
      path: '/reserved-accounts/:id',
      operationId: 'getReservedAccount',
      summary: 'Read a reserved account',
      tag: 'Deposits',
      auth: { kind: 'api_key', scope: 'read' },
      request: { params: ZIdParams },
      responses: { 200: { description: 'The reserved account', data: ZReservedAccount }, 404: { description: 'not_found' } },
    },
    async ({ params }, req, res) => {
      sendData(req, res, 200, renderReservedAccount(await getReservedAccount({ db: deps.db }, apiKeyOf(req).workspaceId, params.id)));
    },
  );
}

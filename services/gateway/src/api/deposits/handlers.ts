import type { Request } from 'express';
import type { z } from 'zod';
import { collectionRailTimeoutMs } from '@cowrie/collection-rails';
import {
  createCustomerReservedAccount,
  createDeposit,
  getReservedAccount,
  listCollections,
  listDepositPayments,
  listReservedAccounts,
  openCollection,
  readCollection,
  renderCollection,
  renderReservedAccount,
  requireLiveChannel,
  type DepositsContext,
} from '@cowrie/deposits';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { apiKeyOf, sendData, sendPage, sessionOf } from '../../http/respond';
import type { ZListQuery } from './schemas';
import type { depositApiSpecs, depositDashboardSpecs } from './specs';

/** GET /reserved-accounts (/v1 and the dashboard's): one page of the workspace's reserved accounts, cursor paginated. */
async function reservedAccountsOf(deps: Pick<GatewayDeps, 'db'>, workspaceId: number, query: z.output<typeof ZListQuery>) {
  const page = await listReservedAccounts({ db: deps.db }, workspaceId, {
    limit: query.limit,
    cursor: query.cursor,
    currency: query.currency?.toUpperCase(),
    customerEmail: query.customer_email,
  });
  return { items: page.items.map(renderReservedAccount), nextCursor: page.nextCursor };
}

/** One handler per /v1 deposit route (depositApiSpecs): each calls @cowrie/deposits on the key's mode and answers. */
export function createDepositApiHandlers(deps: GatewayDeps): HandlersOf<typeof depositApiSpecs> {
  // A request acts on its key's mode: a test key opens accounts on the sandbox rail only.
  const rails = deps.collectionRails;
  const ctxOf = (req: Request): DepositsContext => ({
    db: deps.db,
    rail: rails[apiKeyOf(req).mode],
    logger: req.log,
    railTimeoutMs: collectionRailTimeoutMs(deps.config),
  });
  return {
    async createDeposit({ body }, req, res) {
      const result = await createDeposit(
        ctxOf(req),
        { workspaceId: apiKeyOf(req).workspaceId, channels: deps.channels, openBankingRedirectUrl: deps.config.OPEN_BANKING_REDIRECT_URL },
        body,
      );
      sendData(req, res, 201, result);
    },

    async createCollection({ body }, req, res) {
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

    async getCollection({ params }, req, res) {
      const collection = await readCollection({ db: deps.db }, apiKeyOf(req).workspaceId, params.id);
      sendData(req, res, 200, renderCollection(collection));
    },

    async createReservedAccount({ body }, req, res) {
      requireLiveChannel(deps.channels, 'reserved_va', body.currency);
      const { account, created } = await createCustomerReservedAccount(ctxOf(req), {
        workspaceId: apiKeyOf(req).workspaceId,
        currency: body.currency,
        customer: { name: body.customer_name, email: body.customer_email },
        reference: body.reference,
      });
      sendData(req, res, created ? 201 : 200, renderReservedAccount(account));
    },

    async listReservedAccounts({ query }, req, res) {
      sendPage(req, res, await reservedAccountsOf(deps, apiKeyOf(req).workspaceId, query));
    },

    async getReservedAccount({ params }, req, res) {
      sendData(req, res, 200, renderReservedAccount(await getReservedAccount({ db: deps.db }, apiKeyOf(req).workspaceId, params.id)));
    },
  };
}

/** One handler per dashboard deposit route (depositDashboardSpecs): the signed-in workspace's lists. */
export function createDepositDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof depositDashboardSpecs> {
  return {
    async listSessionCollections({ query }, req, res) {
      sendPage(req, res, await listCollections(deps.db, { workspaceId: sessionOf(req).workspaceId, ...query }));
    },

    async listSessionReservedAccounts({ query }, req, res) {
      sendPage(req, res, await reservedAccountsOf(deps, sessionOf(req).workspaceId, query));
    },

    async listSessionDepositPayments({ query }, req, res) {
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
  };
}

import type { Request, Router } from 'express';
import { z } from 'zod';
import { createCollectionRail } from '@cowrie/collection-rails';
import {
  createCustomerReservedAccount,
  createDeposit,
  listReservedAccounts,
  openCollection,
  parseCollectionAmount,
  parseCurrency,
  parseExpiresIn,
  parseReference,
  readCollection,
  renderCollection,
  renderReservedAccount,
  requireLiveChannel,
  getReservedAccount,
  type DepositsContext,
} from '@cowrie/deposits';
import type { GatewayDeps } from '../deps';
import { requireScope } from '../http/api-auth';
import { apiKeyOf, sendData } from '../http/respond';
import { parseBody, parseParams, parseQuery } from '../http/validate';

const ZDepositRequest = z.object({ channel: z.unknown() }).loose();

const ZCollectionRequest = z
  .object({
    customer_name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    customer_email: z.email('must be an email address').max(254, 'must be at most 254 characters'),
  })
  .loose();

const ZReservedAccountRequest = ZCollectionRequest;

const ZIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

const ZListQuery = z.object({
  limit: z.coerce.number().int().positive().optional(),
  currency: z.string().regex(/^[A-Za-z]{3,4}$/, 'must be a currency code').optional(),
  customer_email: z.string().max(254).optional(),
});

/** POST /v1/deposits, the collections surface and the reserved-accounts surface. */
export function registerDepositRoutes(v1: Router, deps: GatewayDeps) {
  const rail = createCollectionRail(deps.config);
  const ctxOf = (req: Request): DepositsContext => ({ db: deps.db, rail, logger: req.log, railTimeoutMs: deps.config.COLLECTION_RAIL_TIMEOUT_MS });

  v1.post('/deposits', requireScope('collections:write'), async (req, res) => {
    const body = parseBody(ZDepositRequest, req);
    const result = await createDeposit(
      ctxOf(req),
      { workspaceId: apiKeyOf(req).workspaceId, channels: deps.channels, openBankingRedirectUrl: deps.config.OPEN_BANKING_REDIRECT_URL },
      body,
    );
    sendData(req, res, 201, result);
  });

  v1.post('/collections', requireScope('collections:write'), async (req, res) => {
    const body = parseBody(ZCollectionRequest, req);
    const currency = parseCurrency(body.currency);
    requireLiveChannel(deps.channels, 'collection_va', currency);
    const amount = parseCollectionAmount(body.amount);
    const { collection, created } = await openCollection(ctxOf(req), {
      workspaceId: apiKeyOf(req).workspaceId,
      source: 'collection',
      reference: parseReference(body.reference),
      amount,
      currency,
      expiresInSeconds: parseExpiresIn(body.expires_in),
      customer: { name: body.customer_name, email: body.customer_email.toLowerCase() },
    });
    sendData(req, res, created ? 201 : 200, renderCollection(collection));
  });

  v1.get('/collections/:id', requireScope('read'), async (req, res) => {
    const { id } = parseParams(ZIdParams, req);
    const collection = await readCollection({ db: deps.db }, apiKeyOf(req).workspaceId, id);
    sendData(req, res, 200, renderCollection(collection));
  });

  v1.post('/reserved-accounts', requireScope('collections:write'), async (req, res) => {
    const body = parseBody(ZReservedAccountRequest, req);
    const currency = parseCurrency(body.currency);
    requireLiveChannel(deps.channels, 'reserved_va', currency);
    const { account, created } = await createCustomerReservedAccount(ctxOf(req), {
      workspaceId: apiKeyOf(req).workspaceId,
      currency,
      customer: { name: body.customer_name, email: body.customer_email },
      reference: parseReference(body.reference),
    });
    sendData(req, res, created ? 201 : 200, renderReservedAccount(account));
  });

  v1.get('/reserved-accounts', requireScope('read'), async (req, res) => {
    const query = parseQuery(ZListQuery, req);
    // Clamped rather than refused, like the delivery log's limit.
    const limit = Math.min(query.limit ?? 50, 200);
    const rows = await listReservedAccounts({ db: deps.db }, apiKeyOf(req).workspaceId, {
      limit,
      currency: query.currency?.toUpperCase(),
      customerEmail: query.customer_email,
    });
    sendData(req, res, 200, rows.map(renderReservedAccount));
  });

  v1.get('/reserved-accounts/:id', requireScope('read'), async (req, res) => {
    const { id } = parseParams(ZIdParams, req);
    sendData(req, res, 200, renderReservedAccount(await getReservedAccount({ db: deps.db }, apiKeyOf(req).workspaceId, id)));
  });
}

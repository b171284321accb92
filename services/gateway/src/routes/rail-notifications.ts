import express, { type Express, type Request } from 'express';
import { AppError, withRailErrors } from '@cowrie/core';
import {
  PAYSTACK_SIGNATURE_HEADER,
  SANDBOX_SIGNATURE_HEADER,
  parsePaystackNotification,
  parseSandboxNotification,
  verifyHmacSha512,
  type InboundTransfer,
} from '@cowrie/collection-rails';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { receivePayoutNotification } from '@cowrie/payouts';
import { createModeRails, parsePaystackTransferNotification } from '@cowrie/rails';
import type { GatewayDeps } from '../deps';
import { notFoundHandler } from '../http/error-handler';
import { sendData } from '../http/respond';

/** The exact bytes the provider signed (with one of `secrets`); the JSON parser must not see these routes first. */
function verifiedJson(req: Request, secrets: string | string[], header: string, provider: string): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (![secrets].flat().some((secret) => verifyHmacSha512(secret, raw, req.get(header)))) {
    req.log.warn({ provider }, 'rail notification with a missing or invalid signature refused');
    throw new AppError('unauthorized', 'Invalid notification signature');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', 'The notification body is not valid JSON');
  }
}

/**
 * Inbound payment notifications from collection rails (outside /v1: the
 * provider authenticates with its signature, not an API key). Registered before
 * the JSON parser so the signature is checked over the raw body. A rail's
 * route exists only when that rail is the deployment's collection rail and
 * has its secret (never a default): otherwise it is 404, so nobody can sign a
 * credit with a key anyone could know.
 */
export function registerRailNotificationRoutes(app: Express, deps: GatewayDeps) {
  const rails = express.Router();
  rails.use(express.raw({ type: () => true, limit: deps.config.BODY_LIMIT }));

  const receive = async (req: Request, transfer: InboundTransfer) => {
    const outcome = await receiveInboundTransfer({ db: deps.db, logger: req.log, production: deps.config.NODE_ENV === 'production' }, transfer);
    if (!outcome.duplicate) deps.metrics.inboundPayments.inc({ provider: outcome.provider, status: outcome.status, reason: outcome.reason ?? '' });
    return { received: true, matched: outcome.matched, duplicate: outcome.duplicate, status: outcome.status, reason: outcome.reason };
  };

  const { COLLECTION_RAIL, PAYSTACK_SECRET_KEY, COLLECTION_SANDBOX_SECRET, PAYOUT_RAIL, PAYOUT_PAYSTACK_SECRET_KEY } = deps.config;
  // Paystack sends every event of an integration to one URL, signed with that integration's secret key:
  // collections' charges and payouts' transfers alike, each verified with its rail's key.
  const collectionKey = COLLECTION_RAIL === 'paystack' ? PAYSTACK_SECRET_KEY : undefined;
  const payoutKey = PAYOUT_RAIL === 'paystack' ? PAYOUT_PAYSTACK_SECRET_KEY : undefined;
  const payoutRails = payoutKey ? createModeRails(deps.config, { redis: deps.redis, sql: deps.sql }) : null;
  if (collectionKey || payoutKey)
    rails.post('/paystack/notifications', async (req, res) => {
      const body = verifiedJson(
        req,
        [collectionKey, payoutKey].filter((k): k is string => !!k),
        PAYSTACK_SIGNATURE_HEADER,
        'Paystack',
      );
      const transfer = parsePaystackTransferNotification(body);
      if (transfer.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${transfer.reason}`);
      if (transfer.kind === 'transfer') {
        if (!payoutRails) return sendData(req, res, 200, { received: true, ignored: transfer.event });
        // The notification names the payout; the rail's own answer to verify is what is applied.
        // A rail that cannot be asked answers 503, so Paystack delivers it again.
        const outcome = await withRailErrors(
          () =>
            receivePayoutNotification(
              { sql: deps.sql, rails: payoutRails, log: req.log },
              { provider: 'paystack', event: transfer.event, reference: transfer.reference, payload: body as Record<string, unknown> },
            ),
          { kind: 'unavailable', message: 'Paystack could not confirm the transfer; deliver it again later' },
        );
        return sendData(req, res, 200, { received: true, ...outcome });
      }
      if (!collectionKey) return sendData(req, res, 200, { received: true, ignored: (body as { event?: string }).event ?? null });
      const notification = parsePaystackNotification(body);
      if (notification.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${notification.reason}`);
      // Acknowledged so Paystack does not retry events Cowrie has no use for.
      if (notification.kind === 'ignored') return sendData(req, res, 200, { received: true, ignored: notification.event });
      sendData(req, res, 200, await receive(req, notification.transfer));
    });

  if (COLLECTION_RAIL === 'sandbox' && COLLECTION_SANDBOX_SECRET)
    rails.post('/sandbox/notifications', async (req, res) => {
      const body = verifiedJson(req, COLLECTION_SANDBOX_SECRET, SANDBOX_SIGNATURE_HEADER, 'Sandbox');
      const parsed = parseSandboxNotification(body);
      if (parsed.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${parsed.reason}`);
      sendData(req, res, 200, await receive(req, parsed.transfer));
    });

  rails.use(notFoundHandler);
  app.use('/rails', rails);
}

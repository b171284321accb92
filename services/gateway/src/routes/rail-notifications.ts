import express, { type Express, type Request } from 'express';
import { AppError } from '@cowrie/core';
import {
  PAYSTACK_SIGNATURE_HEADER,
  SANDBOX_SIGNATURE_HEADER,
  parsePaystackNotification,
  parseSandboxNotification,
  verifyHmacSha512,
  type InboundTransfer,
} from '@cowrie/collection-rails';
import { receiveInboundTransfer } from '@cowrie/deposits';
import type { GatewayDeps } from '../deps';
import { notFoundHandler } from '../http/error-handler';
import { sendData } from '../http/respond';

/** The exact bytes the provider signed; the JSON parser must not see these routes first. */
function verifiedJson(req: Request, secret: string, header: string, provider: string): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (!verifyHmacSha512(secret, raw, req.get(header))) {
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

  const { COLLECTION_RAIL, PAYSTACK_SECRET_KEY, COLLECTION_SANDBOX_SECRET } = deps.config;
  if (COLLECTION_RAIL === 'paystack' && PAYSTACK_SECRET_KEY)
    rails.post('/paystack/notifications', async (req, res) => {
      const body = verifiedJson(req, PAYSTACK_SECRET_KEY, PAYSTACK_SIGNATURE_HEADER, 'Paystack');
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

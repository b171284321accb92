import express, { type Express, type Request } from 'express';
import { AppError, paystackPayoutSettings, withRailErrors } from '@cowrie/core';
import {
  PAYSTACK_SIGNATURE_HEADER,
  SANDBOX_SIGNATURE_HEADER,
  parsePaystackNotification,
  parseSandboxNotification,
  verifyHmacSha512,
  type InboundTransfer,
} from '@cowrie/collection-rails';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { countFoundLate } from '@cowrie/metrics';
import { receivePayoutNotification } from '@cowrie/payouts';
import { FLUTTERWAVE_SIGNATURE_HEADER, parseFlutterwaveTransferNotification, parsePaystackTransferNotification, verifyFlutterwaveHash } from '@cowrie/rails';
import type { GatewayDeps } from '../deps';
import { notFoundHandler } from '../http/error-handler';
import { parseExactJson } from '../http/json-body';
import { sendData } from '../http/respond';

/**
 * The exact bytes the provider signed, parsed, and which of `secrets` signed
 * them (the first that verifies); the JSON parser must not see these routes first.
 * The bytes are read as /v1 bodies are (parseExactJson): a number a double
 * cannot hold arrives as its digits (a JsonNumberText), so an amount is
 * credited exactly or refused, never rounded.
 */
function verifiedJson(req: Request, secrets: readonly string[], header: string, provider: string): { body: unknown; signedWith: string } {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const signedWith = secrets.find((secret) => verifyHmacSha512(secret, raw, req.get(header)));
  if (signedWith === undefined) {
    req.log.warn({ provider }, 'rail notification with a missing or invalid signature refused');
    throw new AppError('unauthorized', 'Invalid notification signature');
  }
  try {
    return { body: parseExactJson(raw.toString('utf8')), signedWith };
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

  const { COLLECTION_RAIL, PAYSTACK_SECRET_KEY, COLLECTION_SANDBOX_SECRET, PAYOUT_RAILS, PAYOUT_FLUTTERWAVE_WEBHOOK_HASH } = deps.config;
  // Paystack sends every event of an integration to one URL, signed with that integration's secret key:
  // collections' charges and payouts' transfers alike, each verified with its rail's key (the same one,
  // PAYSTACK_SECRET_KEY, unless payouts have a Paystack business of their own, PAYOUT_PAYSTACK_SECRET_KEY).
  const collectionKey = COLLECTION_RAIL === 'paystack' ? PAYSTACK_SECRET_KEY : undefined;
  const payoutKey = PAYOUT_RAILS.includes('paystack') ? paystackPayoutSettings(deps.config).secretKey : undefined;
  const flutterwaveHash = PAYOUT_RAILS.includes('flutterwave') ? PAYOUT_FLUTTERWAVE_WEBHOOK_HASH : undefined;
  // The gateway's payout rails (timed like every other call to them), when a payout rail can notify.
  const payoutRails = payoutKey || flutterwaveHash ? deps.payoutRails : null;
  // A payout rail's notification names the payout; the rail's own answer when asked is what is applied.
  // A rail that cannot be asked answers 503, so the provider delivers it again.
  // A rail's answer kept for an operator (the payout had moved on, or failed) is counted for the alert.
  const receivePayout = async (req: Request, provider: string, event: string, reference: string, body: unknown) => {
    const { found, ...outcome } = await withRailErrors(
      () =>
        receivePayoutNotification(
          { sql: deps.sql, rails: payoutRails!, log: req.log },
          { provider, event, reference, payload: body as Record<string, unknown> },
        ),
      { kind: 'unavailable', message: `The ${provider} rail could not confirm the transfer; deliver it again later` },
    );
    if (found) countFoundLate(deps.metrics, [found]);
    return outcome;
  };
  if (collectionKey || payoutKey)
    rails.post('/paystack/notifications', async (req, res) => {
      const signers = [...new Set([collectionKey, payoutKey].filter((k): k is string => !!k))];
      const { body, signedWith } = verifiedJson(req, signers, PAYSTACK_SIGNATURE_HEADER, 'Paystack');
      const transfer = parsePaystackTransferNotification(body);
      if (transfer.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${transfer.reason}`);
      if (transfer.kind === 'transfer') {
        if (!payoutRails) return sendData(req, res, 200, { received: true, ignored: transfer.event });
        const outcome = await receivePayout(req, 'paystack', transfer.event, transfer.reference, body);
        return sendData(req, res, 200, { received: true, ...outcome });
      }
      // A payout is asked about at its rail before anything is applied, so either business's key may sign
      // a transfer; a charge is credited as notified, so only the collections business's key credits one.
      // Another business's charge (the payouts one, when it has its own key) is acknowledged and left.
      if (signedWith !== collectionKey) return sendData(req, res, 200, { received: true, ignored: (body as { event?: string }).event ?? null });
      const notification = parsePaystackNotification(body);
      if (notification.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${notification.reason}`);
      // Acknowledged so Paystack does not retry events Cowrie has no use for.
      if (notification.kind === 'ignored') return sendData(req, res, 200, { received: true, ignored: notification.event });
      sendData(req, res, 200, await receive(req, notification.transfer));
    });

  // Flutterwave authenticates its webhooks with the secret hash set on its dashboard, sent back as is in `verif-hash`.
  if (flutterwaveHash)
    rails.post('/flutterwave/notifications', async (req, res) => {
      if (!verifyFlutterwaveHash(flutterwaveHash, req.get(FLUTTERWAVE_SIGNATURE_HEADER))) {
        req.log.warn({ provider: 'Flutterwave' }, 'rail notification with a missing or invalid signature refused');
        throw new AppError('unauthorized', 'Invalid notification signature');
      }
      let body: unknown;
      try {
        body = JSON.parse((Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).toString('utf8'));
      } catch {
        throw new AppError('invalid_request', 'The notification body is not valid JSON');
      }
      const transfer = parseFlutterwaveTransferNotification(body);
      if (transfer.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${transfer.reason}`);
      // Acknowledged so Flutterwave does not retry events Cowrie has no use for.
      if (transfer.kind === 'other') return sendData(req, res, 200, { received: true, ignored: (body as { event?: string }).event ?? null });
      const outcome = await receivePayout(req, 'flutterwave', transfer.event, transfer.reference, body);
      sendData(req, res, 200, { received: true, ...outcome });
    });

  if (COLLECTION_RAIL === 'sandbox' && COLLECTION_SANDBOX_SECRET)
    rails.post('/sandbox/notifications', async (req, res) => {
      const { body } = verifiedJson(req, [COLLECTION_SANDBOX_SECRET], SANDBOX_SIGNATURE_HEADER, 'Sandbox');
      const parsed = parseSandboxNotification(body);
      if (parsed.kind === 'invalid') throw new AppError('invalid_request', `Unreadable notification: ${parsed.reason}`);
      sendData(req, res, 200, await receive(req, parsed.transfer));
    });

  rails.use(notFoundHandler);
  app.use('/rails', rails);
}

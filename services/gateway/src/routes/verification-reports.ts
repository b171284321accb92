import express, { type Express, type Request, type Response } from 'express';
import { AppError } from '@cowrie/core';
import {
  TERMII_SIGNATURE_HEADER,
  WHATSAPP_SIGNATURE_HEADER,
  parseTermiiReport,
  parseWhatsAppStatuses,
  recordDeliveryReport,
  verifyTermiiSignature,
  verifyWhatsAppSignature,
  type ParsedReports,
} from '@cowrie/verification';
import type { GatewayDeps } from '../deps';
import { sendData } from '../http/respond';

/**
 * Delivery reports of sent codes (outside /v1: the provider authenticates with
 * its signature over the raw body): Termii's outbound-message events at
 * POST /rails/termii/reports, WhatsApp's status callbacks at
 * POST /rails/whatsapp/reports (and the subscription handshake, GET). A
 * route exists only with its secret configured. A report of a message no
 * verification sent is logged and acknowledged (the provider would otherwise
 * send it again), never an error.
 */
export function registerVerificationReportRoutes(app: Express, deps: GatewayDeps) {
  const reports = express.Router();
  const raw = express.raw({ type: () => true, limit: deps.config.BODY_LIMIT });
  const { VERIFY_TERMII_SECRET_KEY, WHATSAPP_APP_SECRET, WHATSAPP_WEBHOOK_VERIFY_TOKEN } = deps.config;

  const readSigned = (req: Request, provider: string, verified: (body: Buffer) => boolean): unknown => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verified(body)) {
      req.log.warn({ provider }, 'delivery report with a missing or invalid signature refused');
      throw new AppError('unauthorized', 'Invalid notification signature');
    }
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new AppError('invalid_request', 'The notification body is not valid JSON');
    }
  };

  const apply = async (req: Request, res: Response, provider: string, parsed: ParsedReports | { invalid: string }) => {
    if ('invalid' in parsed) throw new AppError('invalid_request', `Unreadable delivery report: ${parsed.invalid}`);
    let recorded = 0;
    let unknown = 0;
    for (const report of parsed.reports) {
      const outcome = await recordDeliveryReport(deps.sql, report);
      if (outcome.kind === 'unknown_message') {
        unknown += 1;
        deps.metrics.verificationDeliveryReports.inc({ provider, status: 'unknown_message' });
        req.log.info({ provider, messageId: report.messageId, status: report.status }, 'delivery report for an unknown message ignored');
        continue;
      }
      if (outcome.kind === 'recorded') recorded += 1;
      deps.metrics.verificationDeliveryReports.inc({ provider, status: outcome.kind === 'recorded' ? report.status : 'ignored' });
      req.log.info({ provider, reference: outcome.reference, status: report.status, changed: outcome.kind === 'recorded' }, 'delivery report');
    }
    if (parsed.ignored) deps.metrics.verificationDeliveryReports.inc({ provider, status: 'ignored' }, parsed.ignored);
    sendData(req, res, 200, { received: true, recorded, unknown, ignored: parsed.ignored });
  };

  if (VERIFY_TERMII_SECRET_KEY)
    reports.post('/termii/reports', raw, async (req, res) => {
      const body = readSigned(req, 'termii', (b) => verifyTermiiSignature(VERIFY_TERMII_SECRET_KEY, b, req.get(TERMII_SIGNATURE_HEADER)));
      await apply(req, res, 'termii', parseTermiiReport(body));
    });

  // Meta's subscription check: it sends the verify token it was given and expects hub.challenge back.
  if (WHATSAPP_WEBHOOK_VERIFY_TOKEN)
    reports.get('/whatsapp/reports', (req, res) => {
      const q = req.query as Record<string, unknown>;
      if (q['hub.mode'] !== 'subscribe' || q['hub.verify_token'] !== WHATSAPP_WEBHOOK_VERIFY_TOKEN || typeof q['hub.challenge'] !== 'string') {
        throw new AppError('unauthorized', 'Invalid subscription verification');
      }
      res.status(200).type('text/plain').send(q['hub.challenge'].slice(0, 200));
    });

  if (WHATSAPP_APP_SECRET)
    reports.post('/whatsapp/reports', raw, async (req, res) => {
      const body = readSigned(req, 'whatsapp_cloud', (b) => verifyWhatsAppSignature(WHATSAPP_APP_SECRET, b, req.get(WHATSAPP_SIGNATURE_HEADER)));
      await apply(req, res, 'whatsapp_cloud', parseWhatsAppStatuses(body));
    });

  app.use('/rails', reports);
}

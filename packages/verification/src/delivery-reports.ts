import { createHmac, timingSafeEqual } from 'node:crypto';
import { defineStatement, sqlParam, sqlColumn, type SqlQueryable } from '@cowrie/db';

/**
 * Delivery reports: what a provider later says of a sent code (Termii's
 * delivery reports, WhatsApp's message status callbacks). A verification
 * records `delivered` or `undelivered` with the report's time; its state
 * (pending, verified, ...) never changes because of one.
 */
export type DeliveryStatus = 'delivered' | 'undelivered';

/** One report, as read from a provider's callback. */
export interface DeliveryReport {
  /** The provider id stored on the verification (`termii`, `whatsapp_cloud`). */
  provider: string;
  /** The provider's message id, stored as `providerReference` when it took the code. */
  messageId: string;
  status: DeliveryStatus;
  at: Date;
}

/** A parsed callback: its reports, and the entries it carried that say nothing final (sent, queued, read receipts of unknown kinds). */
export interface ParsedReports {
  reports: DeliveryReport[];
  ignored: number;
}

const hmacMatches = (algorithm: 'sha256' | 'sha512', secret: string, raw: Buffer, hex: string | undefined | null): boolean => {
  const expected = createHmac(algorithm, secret).update(raw).digest();
  if (!hex || !/^[0-9a-f]+$/i.test(hex) || hex.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(hex.toLowerCase(), 'hex'), expected);
};

/** Termii signs its events with the account's secret key: `X-Termii-Signature`, a hex HMAC-SHA512 of the body. */
export const TERMII_SIGNATURE_HEADER = 'x-termii-signature';
export const verifyTermiiSignature = (secret: string, raw: Buffer, header: string | undefined): boolean => hmacMatches('sha512', secret, raw, header?.trim());

/** Meta signs webhook posts with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
export const WHATSAPP_SIGNATURE_HEADER = 'x-hub-signature-256';
export const verifyWhatsAppSignature = (appSecret: string, raw: Buffer, header: string | undefined): boolean => {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  return !!match && hmacMatches('sha256', appSecret, raw, match[1]);
};

/** Termii's `sent_at` (`2020-12-16 11:34:36`, UTC) or an ISO time; now when absent or unreadable. */
function termiiTime(value: unknown, now: Date): Date {
  if (typeof value !== 'string') return now;
  const parsed = new Date(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isNaN(parsed.getTime()) ? now : parsed;
}

/**
 * A Termii outbound-message event (`type: outbound`, `message_id`, `status`).
 * `Delivered` (also sent as `DELIVERED | Message delivered to handset`) is
 * delivered; `Message Sent` is not final and is ignored; any other status
 * (`DND Active on Phone Number`, `Message Failed`, `Rejected`, `Expired`) is
 * undelivered.
 */
export function parseTermiiReport(body: unknown, now = new Date()): ParsedReports | { invalid: string } {
  if (!body || typeof body !== 'object') return { invalid: 'not an object' };
  const b = body as Record<string, unknown>;
  if (b.type !== undefined && b.type !== 'outbound') return { reports: [], ignored: 1 };
  const messageId = typeof b.message_id === 'string' || typeof b.message_id === 'number' ? String(b.message_id) : '';
  if (!messageId || typeof b.status !== 'string') return { invalid: 'message_id and status are required' };
  const status = b.status.trim().toLowerCase();
  if (status === 'message sent' || status === 'sent' || status === 'pending') return { reports: [], ignored: 1 };
  return {
    reports: [{ provider: 'termii', messageId, status: status.startsWith('delivered') ? 'delivered' : 'undelivered', at: termiiTime(b.sent_at, now) }],
    ignored: 0,
  };
}

interface WhatsAppStatus {
  id?: unknown;
  status?: unknown;
  timestamp?: unknown;
}

/**
 * The `statuses[]` of a WhatsApp Business Account webhook post (every
 * `entry[].changes[].value`): `delivered` and `read` are delivered, `failed`
 * is undelivered (a number not on WhatsApp among its reasons), `sent` is not
 * final and is ignored. Other changes (incoming messages) are ignored.
 */
export function parseWhatsAppStatuses(body: unknown, now = new Date()): ParsedReports | { invalid: string } {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { entry?: unknown }).entry)) return { invalid: 'entry is required' };
  const reports: DeliveryReport[] = [];
  let ignored = 0;
  // Any part of another shape is skipped: a signed post is Meta's, and what Cowrie does not read is not an error.
  const listOf = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
  for (const entry of listOf<{ changes?: unknown } | null>((body as { entry: unknown }).entry)) {
    for (const change of listOf<{ value?: { statuses?: unknown } } | null>(entry?.changes)) {
      for (const s of listOf<WhatsAppStatus | null>(change?.value?.statuses)) {
        if (!s || typeof s !== 'object') {
          ignored += 1;
          continue;
        }
        const seconds = Number(s.timestamp);
        const reported = new Date(seconds * 1000);
        const at = Number.isFinite(seconds) && seconds > 0 && Number.isFinite(reported.getTime()) ? reported : now;
        if (typeof s.id !== 'string' || !s.id) ignored += 1;
        else if (s.status === 'delivered' || s.status === 'read') reports.push({ provider: 'whatsapp_cloud', messageId: s.id, status: 'delivered', at });
        else if (s.status === 'failed') reports.push({ provider: 'whatsapp_cloud', messageId: s.id, status: 'undelivered', at });
        else ignored += 1;
      }
    }
  }
  return { reports, ignored };
}

/**
 * Records a report on the verification whose provider took the message. A
 * delivered verification stays delivered (a later failure report of the same
 * message cannot undo a handset's receipt); an undelivered one becomes
 * delivered when that is reported later.
 */
const RECORD_REPORT = defineStatement({
  name: 'cowrie-verification-delivery-report',
  params: { provider: sqlParam.text, messageId: sqlParam.text, status: sqlParam.text, at: sqlParam.timestamp, now: sqlParam.timestamp },
  text: (p) => `UPDATE "Verification" SET "deliveryStatus" = ${p.status}, "deliveryReportedAt" = ${p.at}, "updatedAt" = ${p.now}
    WHERE "provider" = ${p.provider} AND "providerReference" = ${p.messageId}
      AND ("deliveryStatus" IS NULL OR "deliveryStatus" = 'undelivered')
    RETURNING "reference"`,
  result: { reference: sqlColumn.uuid },
});

const FIND_REPORTED = defineStatement({
  name: 'cowrie-verification-by-provider-message',
  params: { provider: sqlParam.text, messageId: sqlParam.text },
  text: (p) => `SELECT "reference" FROM "Verification" WHERE "provider" = ${p.provider} AND "providerReference" = ${p.messageId} LIMIT 1`,
  result: { reference: sqlColumn.uuid },
});

export type ReportOutcome =
  | { kind: 'recorded'; reference: string; status: DeliveryStatus }
  /** The verification already says delivered. */
  | { kind: 'unchanged'; reference: string }
  /** No verification of this provider has this message id: logged and ignored by the caller. */
  | { kind: 'unknown_message' };

export async function recordDeliveryReport(sql: SqlQueryable, report: DeliveryReport, now = new Date()): Promise<ReportOutcome> {
  const { rows } = await RECORD_REPORT.run(sql, { provider: report.provider, messageId: report.messageId, status: report.status, at: report.at, now });
  if (rows[0]) return { kind: 'recorded', reference: rows[0].reference, status: report.status };
  const { rows: found } = await FIND_REPORTED.run(sql, { provider: report.provider, messageId: report.messageId });
  return found[0] ? { kind: 'unchanged', reference: found[0].reference } : { kind: 'unknown_message' };
}

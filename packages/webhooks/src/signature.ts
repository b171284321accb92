// The one implementation of X-Cowrie-Signature and of the Standard Webhooks
// signature sent beside it: the sender signs with it (deliver.ts) and
// @cowrie/sdk bundles this very file as its receivers' verifier
// (packages/sdk/scripts/build.ts). It imports nothing but Node's own
// modules; the SDK's build fails if it ever does.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'X-Cowrie-Signature';

/** Receivers' suggested replay window. */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

const toBuffer = (body: string | Uint8Array): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

/**
 * Hex HMAC-SHA256 of `<t>.` + the raw body bytes, keyed with the endpoint
 * secret string itself (its UTF-8 bytes, not the 32 bytes its hex encodes).
 */
export function computeWebhookSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(toBuffer(rawBody)).digest('hex');
}

/**
 * The X-Cowrie-Signature value for a body sent at `timestamp` (unix seconds):
 * one v1 digest per secret, the current one first. During a secret roll's
 * grace period the endpoint's new and old secrets both sign
 * (`t=<ts>,v1=<new>,v1=<old>`), so a receiver holding either verifies.
 */
export function webhookSignatureHeader(secrets: string | readonly string[], timestamp: number, rawBody: string | Uint8Array): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((secret) => `v1=${computeWebhookSignature(secret, timestamp, rawBody)}`)].join(',');
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/** Splits `t=...,v1=...[,v1=...]`; null when there is no usable timestamp or v1 digest. */
export function parseWebhookSignatureHeader(header: string): ParsedSignatureHeader | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * The replay window to check with: the default when none is given. One that
 * is not a finite number of seconds, 0 or more, throws a RangeError: NaN (the
 * number of an environment variable that is not set, say) would switch the
 * check off, as `age > NaN` is never true.
 */
export function signatureToleranceSeconds(toleranceSeconds: number | undefined): number {
  if (toleranceSeconds === undefined) return DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError('toleranceSeconds must be a finite number of seconds, 0 or more');
  }
  return toleranceSeconds;
}

/** `now` (a Date or milliseconds since the epoch; default the current time) in milliseconds. One that is no time (NaN, an invalid Date) throws a RangeError, for the same reason. */
export function signatureNowMs(now: Date | number | undefined): number {
  const ms = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : now;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new RangeError('now must be a valid time');
  return ms;
}

export interface VerifyWebhookSignatureOptions {
  /** The request body exactly as received (not re-serialised JSON). */
  rawBody: string | Uint8Array;
  /** The X-Cowrie-Signature header value. */
  header: string | string[] | null | undefined;
  /** The endpoint's 64-hex secret, shown once when the endpoint was created. */
  secret: string;
  /** Largest accepted distance between `t` and now, in seconds: a finite number, 0 or more (anything else throws a RangeError). Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (a Date or milliseconds since the epoch; an invalid one throws a RangeError). Default: now. */
  now?: Date | number;
}

/**
 * For receivers: true when the header carries a v1 digest of `<t>.<rawBody>`
 * under `secret` and `t` is within the tolerance of now. Digests are compared
 * in constant time. Throws a RangeError, whatever the delivery, for a
 * `toleranceSeconds` or `now` that is no number of seconds or no time (NaN).
 */
export function verifyWebhookSignature(opts: VerifyWebhookSignatureOptions): boolean {
  const tolerance = signatureToleranceSeconds(opts.toleranceSeconds);
  const nowMs = signatureNowMs(opts.now);
  const header = Array.isArray(opts.header) ? opts.header[0] : opts.header;
  if (typeof header !== 'string' || !opts.secret) return false;
  const parsed = parseWebhookSignatureHeader(header);
  if (!parsed) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp) > tolerance) return false;
  const expected = Buffer.from(computeWebhookSignature(opts.secret, parsed.timestamp, opts.rawBody), 'hex');
  let match = false;
  for (const candidate of parsed.signatures) {
    // Every candidate is compared, so the time taken does not reveal which matched.
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) match = true;
  }
  return match;
}

// Standard Webhooks (https://www.standardwebhooks.com), sent beside the
// X-Cowrie-* headers on every delivery so receivers can use that standard's
// libraries. Same HMAC key, same timestamp; another signed string and encoding.

/** The Standard Webhooks headers, as their libraries read them (lower case). */
export const STANDARD_WEBHOOKS_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

/** The prefix of a Standard Webhooks secret. */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';

/**
 * The endpoint secret in Standard Webhooks form: `whsec_` + the base64 of the
 * HMAC key bytes. The key of both signatures is the 64-hex string's UTF-8
 * bytes, so this is the same key material, spelled for those libraries
 * (`new Webhook(whsec)` decodes it back to those bytes).
 */
export function standardWebhooksSecret(secret: string): string {
  return STANDARD_WEBHOOKS_SECRET_PREFIX + Buffer.from(secret, 'utf8').toString('base64');
}

/** Base64 HMAC-SHA256 of `<id>.<timestamp>.` + the raw body bytes, keyed with the endpoint secret's UTF-8 bytes. */
export function computeStandardWebhooksSignature(secret: string, id: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.`, 'utf8').update(toBuffer(rawBody)).digest('base64');
}

/**
 * The webhook-signature value: `v1,<base64>` per secret, space-separated, the
 * current secret first. During a secret roll's grace period the new and the
 * old secrets both sign, and a receiver holding either verifies.
 */
export function standardWebhooksSignatureHeader(secrets: string | readonly string[], id: string, timestamp: number, rawBody: string | Uint8Array): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return list.map((secret) => `v1,${computeStandardWebhooksSignature(secret, id, timestamp, rawBody)}`).join(' ');
}

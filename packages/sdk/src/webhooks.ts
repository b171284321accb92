import { timingSafeEqual } from 'node:crypto';
import type { webhooks } from './generated/openapi';
import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOKS_HEADERS,
  STANDARD_WEBHOOKS_SECRET_PREFIX,
  computeStandardWebhooksSignature,
  parseWebhookSignatureHeader,
  signatureNowMs,
  signatureToleranceSeconds,
  verifyWebhookSignature,
} from '@cowrie/webhooks/src/signature';

/** The names of the events this version of the SDK knows. */
export type WebhookEventName = keyof webhooks & string;

/** The body of one event's delivery, `{id, event, created_at, data, livemode}`, typed by its name. */
export type WebhookEventOf<E extends WebhookEventName> = webhooks[E]['post'] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/**
 * Any event this version of the SDK knows, a union keyed by `event`: in a
 * `switch (event.event)`, each case types `event.data`. Cowrie may add events
 * (the API's versioning calls that additive): give the switch a default that
 * ignores what it does not know.
 */
export type WebhookEvent = { [E in WebhookEventName]: WebhookEventOf<E> }[WebhookEventName];

/** Why constructEvent refused a delivery. */
export type WebhookVerificationFailure =
  /** Neither X-Cowrie-Signature nor the Standard Webhooks headers came with it. */
  | 'missing_signature'
  /** A signature came, but none matches the body under the secret. */
  | 'invalid_signature'
  /** The signature matches, but its time is further from now than the tolerance (a replay, or a clock far off). */
  | 'timestamp_out_of_tolerance'
  /** Signed, but not an event's JSON body. */
  | 'invalid_body';

/** Thrown by constructEvent: answer the delivery 400 and do not act on it. */
export class CowrieWebhookError extends Error {
  override readonly name = 'CowrieWebhookError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as Node (`req.headers`), a fetch `Headers`, or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface ConstructEventOptions {
  /** Largest accepted distance between the signature's time and now, in seconds: a finite number, 0 or more (anything else throws a RangeError). Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (a Date or milliseconds since the epoch; an invalid one throws a RangeError). Default: now. */
  now?: Date | number;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** What Cowrie issues as an endpoint secret: 32 random bytes as 64 lower-case hex characters. */
const ISSUED_SECRET = /^[0-9a-f]{64}$/;

/**
 * The endpoint's 64-hex secret, given as itself or as its `whsec_` form (the
 * same key); undefined for anything else. An empty secret ('' or a bare
 * `whsec_`) would key the HMAC with no bytes at all, which anyone can sign with.
 */
function hexSecretOf(secret: unknown): string | undefined {
  if (typeof secret !== 'string') return undefined;
  const key = secret.startsWith(STANDARD_WEBHOOKS_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length), 'base64').toString('utf8')
    : secret;
  return ISSUED_SECRET.test(key) ? key : undefined;
}

const textOf = (rawBody: string | Uint8Array) =>
  typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');

/** Whether any `v1,<base64>` of a webhook-signature value is the digest of the body; compared in constant time. */
function standardSignatureMatches(secret: string, id: string, timestamp: number, rawBody: string | Uint8Array, header: string): boolean {
  const expected = Buffer.from(computeStandardWebhooksSignature(secret, id, timestamp, rawBody), 'base64');
  let match = false;
  for (const part of header.split(' ')) {
    const [version, signature] = part.split(',');
    if (version !== 'v1' || !signature) continue;
    const candidate = Buffer.from(signature, 'base64');
    // Every candidate is compared, so the time taken does not reveal which matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) match = true;
  }
  return match;
}

/**
 * Verifies a delivery and returns its event, typed by its name. The
 * signature is checked over the body exactly as received (a Buffer or
 * string, never re-serialised JSON) with either header set Cowrie sends:
 * X-Cowrie-Signature, or the Standard Webhooks headers (webhook-id,
 * webhook-timestamp, webhook-signature). `secret` is the endpoint's 64-hex
 * `secret` or its `standard_webhooks_secret` (`whsec_…`): the same key.
 * Throws a CowrieWebhookError (its `reason` says why) for a delivery that is
 * not signed with that secret, whose time is more than `toleranceSeconds`
 * (default 300) from now, or whose body is not an event; and, as
 * `invalid_signature`, for any `secret` that is not one of those two forms
 * (an empty one, say), which nothing verifies against. Throws a RangeError
 * for a `toleranceSeconds` that is not a finite number, 0 or more, or a `now`
 * that is no time (NaN from an unset variable, say).
 */
export function constructEvent(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: ConstructEventOptions = {}): WebhookEvent {
  // A tolerance or clock of NaN would switch the replay window off: refused before anything else.
  const tolerance = signatureToleranceSeconds(options.toleranceSeconds);
  const nowSeconds = Math.floor(signatureNowMs(options.now) / 1000);
  const key = hexSecretOf(secret);
  // Said without the secret: an error message may end up in a log.
  if (key === undefined) {
    throw new CowrieWebhookError('invalid_signature', "the secret is not an endpoint's: its 64 hex characters, or their whsec_ form, are needed");
  }
  const cowrie = headerOf(headers, SIGNATURE_HEADER);
  const standard = {
    id: headerOf(headers, STANDARD_WEBHOOKS_HEADERS.id),
    timestamp: headerOf(headers, STANDARD_WEBHOOKS_HEADERS.timestamp),
    signature: headerOf(headers, STANDARD_WEBHOOKS_HEADERS.signature),
  };
  // The signed time of whichever header set verifies the body, regardless of the tolerance.
  let signedAt: number | undefined;
  const parsed = cowrie ? parseWebhookSignatureHeader(cowrie) : null;
  if (parsed && verifyWebhookSignature({ rawBody, header: cowrie, secret: key, toleranceSeconds: Number.MAX_SAFE_INTEGER })) signedAt = parsed.timestamp;
  if (signedAt === undefined && standard.id && standard.timestamp && standard.signature && /^\d{1,12}$/.test(standard.timestamp)) {
    const timestamp = Number(standard.timestamp);
    if (standardSignatureMatches(key, standard.id, timestamp, rawBody, standard.signature)) signedAt = timestamp;
  }
  if (signedAt === undefined) {
    if (!cowrie && !standard.signature) throw new CowrieWebhookError('missing_signature', `no ${SIGNATURE_HEADER} or webhook-signature header`);
    throw new CowrieWebhookError('invalid_signature', 'the signature does not match this body under this secret');
  }
  if (Math.abs(nowSeconds - signedAt) > tolerance) {
    throw new CowrieWebhookError('timestamp_out_of_tolerance', `signed ${nowSeconds - signedAt} s from now, more than the ${tolerance} s allowed`);
  }
  let event: unknown;
  try {
    event = JSON.parse(textOf(rawBody));
  } catch {
    throw new CowrieWebhookError('invalid_body', 'the body is not JSON');
  }
  const e = event as Partial<Record<'id' | 'event' | 'created_at', unknown>> | null;
  if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.event !== 'string' || typeof e.created_at !== 'string' || !('data' in e)) {
    throw new CowrieWebhookError('invalid_body', 'the body is not an event ({id, event, created_at, data})');
  }
  return event as WebhookEvent;
}

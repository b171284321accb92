import { decryptSecret, type Logger } from '@cowrie/core';
import { serialiseWebhookBody, webhookBodyFromStored } from './delivery-log';
import type { DeliveryStore, DeliveryToSend, DispatchKey } from './delivery-bookkeeping';
import type { EndpointSlot, EndpointSlots } from './endpoint-slots';
import type { AttemptResult, WebhookHttpClient } from './http-client';
import { deliveryJobId } from './relay';
import { STANDARD_WEBHOOKS_HEADERS, standardWebhooksSignatureHeader, webhookSignatureHeader } from './signature';

/**
 * Three attempts, waiting 0, 500 and 1500 ms before each:
 * long enough to ride out a receiver restart, short enough to finish well
 * inside a job's lock.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [0, 500, 1500] as const;

export type WebhookAttempt =
  | {
      kind: 'delivered' | 'failed';
      /** The log row id. */
      logId: bigint;
      deliveryId: string;
      endpointId: number;
      ok: boolean;
      statusCode: number | null;
      attempts: number;
      error: string | null;
    }
  /**
   * Nothing sent: the row is gone (endpoint deleted), already has its outcome,
   * or its endpoint was switched off (the row is then failed, unsent, so a
   * recover after the endpoint is enabled again sends it).
   */
  | { kind: 'skipped'; deliveryId: string; reason: 'not_found' | 'already_completed' | 'endpoint_inactive' };

/**
 * Nothing sent and nothing recorded: the endpoint already had every one of
 * its slots in flight (EndpointSlots). The dispatch is tried again after
 * `retryInMs`; this was no attempt.
 */
export interface WebhookDeferred {
  kind: 'deferred';
  deliveryId: string;
  endpointId: number;
  retryInMs: number;
}

export interface DeliverWebhookOptions {
  /** The delivery rows (createDeliveryStore: batched with concurrent jobs'). */
  deliveries: DeliveryStore;
  http: WebhookHttpClient;
  /** ENCRYPTION_KEY, to unseal the endpoint secret. */
  encryptionKey: string;
  /** The delivery and which of its dispatches. */
  dispatch: DispatchKey;
  log?: Logger;
  /** Waits between attempts; a test may shorten it. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock used for the signature timestamp. */
  now?: () => Date;
  /**
   * The endpoints' in-flight slots (WEBHOOK_ENDPOINT_CONCURRENCY): a dispatch
   * sends only while it holds one of its endpoint's, and is `deferred` when
   * none is free. Without them nothing limits an endpoint.
   */
  slots?: EndpointSlots;
  /** How many times this dispatch was already deferred (its next wait grows with it). */
  timesDeferred?: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const USER_AGENT = 'Cowrie-Webhooks/1.0';
/** The error of a dispatch not sent because its endpoint was switched off after it was queued. */
export const NOT_SENT_ENDPOINT_INACTIVE = 'Not sent: the endpoint was switched off';

/** Endpoint secrets kept open, at most OPENED_SECRETS_MAX per ENCRYPTION_KEY, by their sealed value (a new or rolled secret is another value). */
const OPENED_SECRETS_MAX = 1000;
const openedSecrets = new Map<string, Map<string, string>>();

/**
 * decryptSecret, once per sealed secret: every delivery to an endpoint
 * would otherwise open the same value again (an AES-GCM decryption each).
 * A value that does not open is not kept, so it throws every time.
 */
function openSecret(sealed: string, encryptionKey: string): string {
  let opened = openedSecrets.get(encryptionKey);
  if (!opened) openedSecrets.set(encryptionKey, (opened = new Map()));
  let secret = opened.get(sealed);
  if (secret === undefined) {
    secret = decryptSecret(sealed, encryptionKey);
    if (opened.size >= OPENED_SECRETS_MAX) opened.delete(opened.keys().next().value!);
    opened.set(sealed, secret);
  }
  return secret;
}

/**
 * Dispatches one pending delivery: the same body bytes and X-Cowrie-Delivery
 * (and webhook-id) on every attempt, a fresh signature timestamp per attempt,
 * up to three attempts, then one final outcome on its log row. A row that already has an
 * outcome is never sent again, so a replayed job changes nothing. With
 * `slots`, the attempts and the outcome's write happen while the dispatch
 * holds one of its endpoint's slots; when all are held it is `deferred`
 * (nothing sent, nothing stored) for its caller to run again later.
 */
export async function deliverWebhook(opts: DeliverWebhookOptions): Promise<WebhookAttempt | WebhookDeferred> {
  const now = opts.now ?? (() => new Date());
  const { deliveryId } = opts.dispatch;
  const row = await opts.deliveries.find(opts.dispatch);
  if (!row) return { kind: 'skipped', deliveryId, reason: 'not_found' };
  if (row.completedAt) return { kind: 'skipped', deliveryId, reason: 'already_completed' };
  // An endpoint switched off after the event was relayed gets nothing more; the
  // dashboard's explicit test (no outbox event) still reaches it.
  if (!row.endpoint.active && row.outboxEventId !== null) {
    await opts.deliveries.complete({
      id: row.id,
      ok: false,
      statusCode: null,
      attempts: 0,
      error: NOT_SENT_ENDPOINT_INACTIVE,
      completedAt: now(),
      requestHeaders: null,
      responseExcerpt: null,
    });
    return { kind: 'skipped', deliveryId, reason: 'endpoint_inactive' };
  }

  const held = await takeSlot(opts, row.endpointId);
  if (held === 'full') return { kind: 'deferred', deliveryId, endpointId: row.endpointId, retryInMs: opts.slots!.deferMs(opts.timesDeferred ?? 0) };
  try {
    return await send(opts, row, held);
  } finally {
    // Freed once the outcome is stored (or the dispatch failed): a lost release lapses with its lease.
    await held?.release().catch((err: unknown) => slotTrouble(opts, row.endpointId, 'release', err));
  }
}

/**
 * One of the endpoint's slots for the dispatch, 'full' when all are held, or
 * null when there are no slots or Redis did not answer: the dispatch is then
 * sent without one (the limit keeps endpoints apart; it never holds a
 * delivery back on its own account).
 */
async function takeSlot(opts: DeliverWebhookOptions, endpointId: number): Promise<EndpointSlot | 'full' | null> {
  if (!opts.slots) return null;
  try {
    return (await opts.slots.take(endpointId, deliveryJobId(opts.dispatch))) ?? 'full';
  } catch (err) {
    slotTrouble(opts, endpointId, 'take', err);
    return null;
  }
}

function slotTrouble(opts: DeliverWebhookOptions, endpointId: number, step: 'take' | 'renew' | 'release', err: unknown) {
  opts.log?.warn(
    { deliveryId: opts.dispatch.deliveryId, endpointId, err: { message: (err as Error)?.message ?? String(err) } },
    `endpoint slot: ${step} failed`,
  );
}

/** The attempts and the outcome of a dispatch that may be sent now. */
async function send(opts: DeliverWebhookOptions, row: DeliveryToSend, slot: EndpointSlot | null): Promise<WebhookAttempt> {
  const sleep = opts.sleep ?? realSleep;
  const now = opts.now ?? (() => new Date());
  // A rolled secret's predecessor signs too until its grace period ends.
  const { previousSecretEncrypted, previousSecretExpiresAt } = row.endpoint;
  const signingSecrets = [openSecret(row.endpoint.secretEncrypted, opts.encryptionKey)];
  const previousUntil = previousSecretExpiresAt ? Date.parse(previousSecretExpiresAt) : 0;
  const body = serialiseWebhookBody(webhookBodyFromStored(row.payload));
  let attempts = 0;
  let last: AttemptResult = { kind: 'network_error', error: 'not attempted' };
  let headers: Record<string, string> = {};
  for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
    if (delay > 0) await sleep(delay);
    // The lease covers one attempt and the wait before the next: a new one for each further attempt.
    if (attempts > 0) await slot?.renew().catch((err: unknown) => slotTrouble(opts, row.endpointId, 'renew', err));
    attempts += 1;
    const sentAt = now().getTime();
    const timestamp = Math.floor(sentAt / 1000);
    const secrets =
      previousSecretEncrypted && sentAt < previousUntil ? [...signingSecrets, openSecret(previousSecretEncrypted, opts.encryptionKey)] : signingSecrets;
    headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-cowrie-event': row.event,
      'x-cowrie-delivery': row.deliveryId,
      'x-cowrie-signature': webhookSignatureHeader(secrets, timestamp, body),
      // Standard Webhooks: the same delivery id, timestamp and secrets.
      [STANDARD_WEBHOOKS_HEADERS.id]: row.deliveryId,
      [STANDARD_WEBHOOKS_HEADERS.timestamp]: String(timestamp),
      [STANDARD_WEBHOOKS_HEADERS.signature]: standardWebhooksSignatureHeader(secrets, row.deliveryId, timestamp, body),
    };
    last = await opts.http.post(row.endpoint.url, body, headers);
    if (last.kind === 'response' && last.statusCode >= 200 && last.statusCode < 300) break;
    // A refused address will be refused again; retrying only delays the outcome.
    if (last.kind === 'refused') break;
  }

  const ok = last.kind === 'response' && last.statusCode >= 200 && last.statusCode < 300;
  const statusCode = last.kind === 'response' ? last.statusCode : null;
  const error = ok ? null : last.kind === 'response' ? `HTTP ${last.statusCode}` : last.error;
  const stored = await opts.deliveries.complete({
    id: row.id,
    ok,
    statusCode,
    attempts,
    error,
    completedAt: now(),
    // A refused address was never sent to.
    requestHeaders: last.kind === 'refused' ? null : headers,
    responseExcerpt: last.kind === 'response' ? last.bodyExcerpt : null,
  });
  opts.log?.info(
    { deliveryId: row.deliveryId, dispatch: row.dispatch, endpointId: row.endpointId, event: row.event, ok, statusCode, attempts, error, stored },
    'webhook dispatched',
  );
  return { kind: ok ? 'delivered' : 'failed', logId: row.id, deliveryId: row.deliveryId, endpointId: row.endpointId, ok, statusCode, attempts, error };
}

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, encryptSecret, parsePathId, rollGraceSecondsField } from '@cowrie/core';
import type { DbOrTx, Prisma, PrismaClient } from '@cowrie/db';
import { isWebhookEventName } from '@cowrie/events';
import { findAddressRefusal, type AddressPolicy } from './address-policy';
import { resolveAllowedAddresses, systemResolver, type Resolver } from './guarded-lookup';
import { ALL_EVENTS, WILDCARD_EVENT } from './events';
import { standardWebhooksSecret } from './signature';

/** The longest webhook URL. */
export const WEBHOOK_URL_MAX_LENGTH = 512;
// A subscription list beyond this is a mistake, not a use case.
const MAX_EVENTS_PER_ENDPOINT = 100;
// A creation-time DNS answer slower than this is skipped; the delivery-time check still applies.
const CREATE_RESOLVE_TIMEOUT_MS = 3000;

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Whether the URL names a user or password: deliveries never send them (receivers check the signature), and the URL travels in events. */
function holdsCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/**
 * The form a webhook URL is stored and sent to: the WHATWG parser's
 * serialisation (scheme and host lowercased, `http:/host` and backslashes
 * read as `http://host/`, default port, dot segments and tabs or newlines
 * dropped, spaces and non-ASCII percent-encoded), without its fragment, which
 * is never sent, and without a `/` path the parser adds to one written with
 * none.
 */
export function canonicalWebhookUrl(value: string): string {
  const url = new URL(value);
  url.hash = '';
  // A URL written without a path keeps none (the parser would add `/`): what was given reads back as given.
  if (url.pathname === '/' && !writesPath(value)) return `${url.origin}${url.search}`;
  return url.href;
}

/** Whether a URL as written has a path (a `/` after its host), however many slashes follow its scheme. */
function writesPath(value: string): boolean {
  const afterScheme = value.trim().replace(/^[a-z][a-z0-9+.-]*:[/\\]*/i, '');
  return /[/\\]/.test(afterScheme.split(/[?#]/)[0]!);
}

/** Port 0: no receiver listens there, so every delivery would fail. */
function namesPortZero(value: string): boolean {
  try {
    return new URL(value).port === '0';
  } catch {
    return false;
  }
}

/**
 * An absolute http(s) URL, trimmed like the API's other text fields, answered
 * and stored in its canonical form (canonicalWebhookUrl). At most
 * WEBHOOK_URL_MAX_LENGTH characters as sent and as stored (percent-encoding
 * may lengthen it).
 */
export const ZWebhookUrl = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(WEBHOOK_URL_MAX_LENGTH, `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`)
  .refine(isAbsoluteHttpUrl, 'must be an absolute http(s) URL')
  .refine(
    (value) => !holdsCredentials(value),
    'must not hold a user or password: deliveries do not send them (receivers verify the signature instead), and the URL appears in events and the delivery log',
  )
  .refine((value) => !namesPortZero(value), 'must not name port 0: nothing can be delivered to it')
  .transform(canonicalWebhookUrl)
  .refine(
    (value) => value.length <= WEBHOOK_URL_MAX_LENGTH,
    `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters as stored (normalised: spaces and non-ASCII characters percent-encoded)`,
  )
  .meta({
    description:
      'An absolute http(s) URL without a user, a password or port 0. Leading and trailing whitespace is trimmed; it is stored and answered normalised, ' +
      'as the WHATWG URL parser writes it (scheme and host lowercased, the default port dropped, spaces and non-ASCII percent-encoded), without its #fragment; ' +
      'one written without a path keeps none. ' +
      `At most ${WEBHOOK_URL_MAX_LENGTH} characters, both as sent and as stored`,
  });

const ZEventName = z.string().trim().max(100);

// Unknown names a refusal lists at most (a list holds up to MAX_EVENTS_PER_ENDPOINT).
const UNKNOWN_EVENTS_SHOWN = 10;

/**
 * `*` or names of the events' catalog (GET /webhook-event-types, `ping`
 * included): an endpoint receives an event only when its list holds the exact
 * name or `*`, so any other name would never match one. Null or empty means
 * every event; omitted, every event on create and no change on update.
 */
const ZEvents = z
  .array(ZEventName)
  .max(MAX_EVENTS_PER_ENDPOINT)
  .superRefine((names, ctx) => {
    const unknown = [...new Set(names.filter((name) => name !== WILDCARD_EVENT && !isWebhookEventName(name)))];
    if (unknown.length === 0) return;
    const shown = unknown.slice(0, UNKNOWN_EVENTS_SHOWN).map((name) => JSON.stringify(name));
    const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : '';
    ctx.addIssue({
      code: 'custom',
      message: `must hold only * or names of GET /webhook-event-types; unknown: ${shown.join(', ')}${more}`,
    });
  })
  .nullish()
  .meta({
    description:
      'Event names to receive: `*` (every event, including ones added later) or names listed by GET /webhook-event-types; any other name is refused (400, details.field events). ' +
      'Null or empty means `["*"]`; omitted means `["*"]` on create and no change on update',
  });

export const ZCreateWebhookEndpoint = z.object({
  url: ZWebhookUrl,
  events: ZEvents,
  active: z.boolean().optional(),
});
export type CreateWebhookEndpoint = z.output<typeof ZCreateWebhookEndpoint>;

/** Only url, events and active can change; anything else in the body is ignored. `active: true` also clears an automatic disable. */
export const ZUpdateWebhookEndpoint = z.object({
  url: ZWebhookUrl.optional(),
  events: ZEvents,
  active: z.boolean().optional(),
});
export type UpdateWebhookEndpoint = z.output<typeof ZUpdateWebhookEndpoint>;

function normaliseEvents(events: string[] | null | undefined): string[] {
  const unique = [...new Set(events ?? [])];
  return unique.length === 0 ? [...ALL_EVENTS] : unique;
}

/** The public view; the secret is never part of it. */
export interface WebhookEndpointView {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  has_secret: boolean;
  created_at: string;
  /** Why the service switched the endpoint off (every dispatch failed for WEBHOOK_DISABLE_AFTER_SECONDS); null otherwise. */
  disabled_reason: string | null;
  disabled_at: string | null;
}

interface EndpointRow {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  secretEncrypted: string;
  createdAt: Date;
  disabledReason: string | null;
  disabledAt: Date | null;
}

export function webhookEndpointView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    has_secret: row.secretEncrypted.length > 0,
    created_at: row.createdAt.toISOString(),
    disabled_reason: row.disabledReason,
    disabled_at: row.disabledAt?.toISOString() ?? null,
  };
}

/** 64 hex characters from 32 random bytes. */
export const generateWebhookSecret = (): string => randomBytes(32).toString('hex');

export interface UrlCheckOptions {
  policy: AddressPolicy;
  resolver?: Resolver;
}

/**
 * Refuses a URL whose host is, or only resolves to, an address the SSRF policy
 * refuses. A host that does not resolve yet is accepted: every delivery checks
 * the address it actually connects to.
 */
export async function assertWebhookUrlAllowed(url: string, opts: UrlCheckOptions): Promise<void> {
  const { hostname } = new URL(url);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CREATE_RESOLVE_TIMEOUT_MS);
  });
  try {
    await Promise.race([resolveAllowedAddresses(hostname, opts.policy, opts.resolver ?? systemResolver), timeout]);
  } catch (err) {
    const refusal = findAddressRefusal(err);
    if (refusal) {
      throw new AppError('invalid_request', `url: ${refusal.message}`, { details: { field: 'url', reason: refusal.reason } });
    }
  } finally {
    clearTimeout(timer);
  }
}

export interface CreateWebhookEndpointOptions extends UrlCheckOptions {
  workspaceId: number;
  input: CreateWebhookEndpoint;
  /** ENCRYPTION_KEY: the secret is stored sealed with it. */
  encryptionKey: string;
  /** WEBHOOK_ENDPOINTS_MAX: endpoints a workspace may have at once. */
  maxEndpoints: number;
}

/**
 * A new secret as its one answer shows it: the 64-hex string (the key of
 * X-Cowrie-Signature) and the same key in Standard Webhooks form (whsec_…,
 * for webhook-signature and that standard's libraries).
 */
export interface ShownWebhookSecret {
  secret: string;
  standard_webhooks_secret: string;
}

const shownWebhookSecret = (secret: string): ShownWebhookSecret => ({ secret, standard_webhooks_secret: standardWebhooksSecret(secret) });

/**
 * Creates an endpoint; the answer is the only place the secret ever appears.
 * A workspace has at most `maxEndpoints`: counted and created under a lock on
 * the workspace, so concurrent creations cannot pass it (the URL's DNS check
 * runs before, outside the transaction).
 */
export async function createWebhookEndpoint(db: PrismaClient, opts: CreateWebhookEndpointOptions): Promise<WebhookEndpointView & ShownWebhookSecret> {
  await assertWebhookUrlAllowed(opts.input.url, opts);
  const secret = generateWebhookSecret();
  const row = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhook-endpoints:${opts.workspaceId}`}))`;
    const count = await tx.webhookEndpoint.count({ where: { workspaceId: opts.workspaceId } });
    if (count >= opts.maxEndpoints) {
      throw new AppError('rate_limited', `A workspace has at most ${opts.maxEndpoints} webhook endpoints; delete one to add another`, {
        details: { limit: opts.maxEndpoints, reason: 'webhook_endpoints', retry_after_seconds: 60 },
      });
    }
    return tx.webhookEndpoint.create({
      data: {
        workspaceId: opts.workspaceId,
        url: opts.input.url,
        events: normaliseEvents(opts.input.events),
        active: opts.input.active ?? true,
        secretEncrypted: encryptSecret(secret, opts.encryptionKey),
      },
    });
  });
  return { ...webhookEndpointView(row), ...shownWebhookSecret(secret) };
}

/** The workspace's endpoints, oldest first. */
export async function listWebhookEndpoints(db: DbOrTx, workspaceId: number): Promise<WebhookEndpointView[]> {
  const rows = await db.webhookEndpoint.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
  return rows.map(webhookEndpointView);
}

/** Parses a path id; anything that is not an endpoint id is simply not found. */
export const parseEndpointId = (raw: unknown): number => parsePathId(raw, endpointNotFound);

export const endpointNotFound = () => new AppError('not_found', 'Webhook endpoint not found');

/** The endpoint row when it belongs to the workspace; 404 otherwise (another workspace's id included). */
export async function getWebhookEndpoint(db: DbOrTx, workspaceId: number, id: number) {
  const row = await db.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (!row) throw endpointNotFound();
  return row;
}

export interface UpdateWebhookEndpointOptions extends UrlCheckOptions {
  workspaceId: number;
  id: number;
  input: UpdateWebhookEndpoint;
}

export async function updateWebhookEndpoint(db: DbOrTx, opts: UpdateWebhookEndpointOptions): Promise<WebhookEndpointView> {
  await getWebhookEndpoint(db, opts.workspaceId, opts.id);
  if (opts.input.url !== undefined) await assertWebhookUrlAllowed(opts.input.url, opts);
  const data: Prisma.WebhookEndpointUpdateManyMutationInput = {};
  if (opts.input.url !== undefined) data.url = opts.input.url;
  if (opts.input.events !== undefined) data.events = normaliseEvents(opts.input.events);
  if (opts.input.active !== undefined) data.active = opts.input.active;
  // Enabled again: the automatic disable's reason goes, and its run of failures starts over.
  if (opts.input.active === true) Object.assign(data, { disabledReason: null, disabledAt: null, failingSince: null, failureStreak: 0 });
  // Switched off by its user: theirs now, not the sender's, so the relay keeps nothing more for it (claimOutboxEvents).
  if (opts.input.active === false) Object.assign(data, { disabledReason: null, disabledAt: null });
  const updated = await db.webhookEndpoint.updateManyAndReturn({ where: { id: opts.id, workspaceId: opts.workspaceId }, data });
  if (!updated[0]) throw endpointNotFound();
  return webhookEndpointView(updated[0]);
}

/** Deletes the endpoint and its delivery log; pending deliveries to it are dropped. */
export async function deleteWebhookEndpoint(db: DbOrTx, opts: { workspaceId: number; id: number }): Promise<{ id: number; deleted: true }> {
  const { count } = await db.webhookEndpoint.deleteMany({ where: { id: opts.id, workspaceId: opts.workspaceId } });
  if (count === 0) throw endpointNotFound();
  return { id: opts.id, deleted: true };
}

export const ZRollWebhookSecretRequest = z.object({ grace_seconds: rollGraceSecondsField('the old secret keeps signing beside the new one') });

// A roll that keeps losing to concurrent rolls of the same endpoint gives up after this many reads (each loss means another roll landed).
const ROLL_ATTEMPTS = 20;

/**
 * Gives an endpoint a new secret (returned this once). For the grace period
 * every delivery is signed with both (`t=…,v1=<new>,v1=<old>`), so a receiver
 * switches secrets without missing a delivery; a grace of 0 drops the old one
 * now. A roll during another's grace period replaces the older secret: only
 * the last two ever sign.
 *
 * The write is conditional on the secret it read, so concurrent rolls of one
 * endpoint apply one after the other: a roll that lost the race reads the
 * winner's secret and rolls from it, so the winner's new secret becomes its
 * previous one instead of vanishing (both answer 201, as two rolls a moment
 * apart would).
 */
export async function rollWebhookEndpointSecret(
  db: DbOrTx,
  opts: { workspaceId: number; id: number; graceSeconds: number; encryptionKey: string; now?: Date },
): Promise<WebhookEndpointView & ShownWebhookSecret & { previous_secret_expires_at: string | null }> {
  const now = opts.now ?? new Date();
  const secret = generateWebhookSecret();
  const secretEncrypted = encryptSecret(secret, opts.encryptionKey);
  const keepPrevious = opts.graceSeconds > 0;
  const expiresAt = keepPrevious ? new Date(now.getTime() + opts.graceSeconds * 1000) : null;
  for (let attempt = 0; attempt < ROLL_ATTEMPTS; attempt++) {
    const current = await getWebhookEndpoint(db, opts.workspaceId, opts.id);
    const updated = await db.webhookEndpoint.updateManyAndReturn({
      where: { id: opts.id, workspaceId: opts.workspaceId, secretEncrypted: current.secretEncrypted },
      data: {
        secretEncrypted,
        previousSecretEncrypted: keepPrevious ? current.secretEncrypted : null,
        previousSecretExpiresAt: expiresAt,
      },
    });
    if (updated[0]) return { ...webhookEndpointView(updated[0]), ...shownWebhookSecret(secret), previous_secret_expires_at: expiresAt?.toISOString() ?? null };
    // Another roll changed the secret since it was read (or the endpoint is gone: the next read says so).
  }
  throw new AppError('idempotency_conflict', "This endpoint's secret is being rolled by other requests at the same moment; retry", {
    details: { reason: 'concurrent_roll' },
  });
}

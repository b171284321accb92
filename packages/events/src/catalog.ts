import type { z } from 'zod';
import { defineEvents, type Widened } from './define-events';
import {
  ZCollectionExpiredData,
  ZCollectionSuccessfulData,
  ZEndpointDisabledData,
  ZPingData,
  ZReservedAccountCreatedData,
  ZTransaction,
  ZVerificationEventData,
} from './schemas';

/** The event sent to a workspace's other endpoints when one is switched off. */
export const ENDPOINT_DISABLED_EVENT = 'webhook_endpoint.disabled';
/** The event the dashboard's test action sends. */
export const PING_EVENT = 'ping';

/**
 * Every event Cowrie sends, with the schema of its `data`, in the order the
 * API document lists them. An event is recorded in the outbox only under a
 * name of this catalog, with data of its shape (`recordEvent`, `EmittedEvent`).
 */
export const webhookEvents = defineEvents({
  'transfer.completed': ZTransaction,
  'transfer.failed': ZTransaction,
  'transfer.reversed': ZTransaction,
  'collection.successful': ZCollectionSuccessfulData,
  'collection.expired': ZCollectionExpiredData,
  'reserved_account.created': ZReservedAccountCreatedData,
  'verification.verified': ZVerificationEventData,
  'verification.failed': ZVerificationEventData,
  'verification.expired': ZVerificationEventData,
  [ENDPOINT_DISABLED_EVENT]: ZEndpointDisabledData,
  [PING_EVENT]: ZPingData,
});

type Catalog = (typeof webhookEvents)['schemas'];

/** A name of the catalog. */
export type WebhookEventName = keyof Catalog & string;

/** What an emitter passes as the `data` of event `N` (its schema's shape; see Widened). */
export type EventPayload<N extends WebhookEventName> = Widened<z.input<Catalog[N]>>;

/**
 * An event as an emitter hands it to a statement that records it: its name
 * and its data, checked against the catalog. `EmittedEvent<'transfer.completed' | 'transfer.failed'>`
 * is either, each with its own data.
 */
export type EmittedEvent<N extends WebhookEventName = WebhookEventName> = N extends WebhookEventName ? { name: N; payload: EventPayload<N> } : never;

/** True for a name of the catalog. */
export function isWebhookEventName(name: string): name is WebhookEventName {
  return Object.hasOwn(webhookEvents.schemas, name);
}

// Risk: an event recorded under a name the catalog does not hold (so the API
// document, GET /webhook-event-types and the endpoints' subscriptions never
// heard of it), or with data of another shape than the catalog's schema, with
// nothing failing. The emitters' types come from the catalog: the
// `@ts-expect-error` lines below are such emitters, and the typecheck fails if
// any of them compiles.
import { webhookEvents, isWebhookEventName, type EmittedEvent, type EventPayload } from '../src/index';

const collectionExpired: EventPayload<'collection.expired'> = {
  id: 1,
  reference: 'col_1',
  amount: '2500.000000',
  currency: 'NGN',
  account_number: '0123456789',
  expires_at: '2026-11-27T03:00:00.000Z',
};

test('a name outside the catalog, or data of another shape, does not compile', () => {
  // @ts-expect-error: not an event of the catalog
  const unknownName: EmittedEvent = { name: 'transfer.exploded', payload: collectionExpired };
  // @ts-expect-error: collection.expired's data lacks its expires_at
  const missingField: EmittedEvent = { name: 'collection.expired', payload: { ...collectionExpired, expires_at: undefined } };
  // @ts-expect-error: an amount is a decimal string, not a number
  const wrongType: EmittedEvent<'collection.expired'> = { name: 'collection.expired', payload: { ...collectionExpired, amount: 2500 } };
  // @ts-expect-error: a field the catalog does not declare
  const extraField: EmittedEvent<'collection.expired'> = { name: 'collection.expired', payload: { ...collectionExpired, secret: 'x' } };
  // @ts-expect-error: the data of another event (what the ledger's DebitClose.event refuses)
  const otherEvent: EmittedEvent<'transfer.completed' | 'transfer.failed'> = { name: 'transfer.failed', payload: collectionExpired };
  const right: EmittedEvent<'collection.expired'> = { name: 'collection.expired', payload: collectionExpired };
  // What compiled is what the catalog's schema accepts; what did not is refused at run time too.
  expect(webhookEvents.schemas[right.name].safeParse(right.payload).success).toBe(true);
  expect(isWebhookEventName(unknownName.name)).toBe(false);
  expect(webhookEvents.schemas['collection.expired'].safeParse(missingField.payload).success).toBe(false);
  expect(webhookEvents.schemas['collection.expired'].safeParse(wrongType.payload).success).toBe(false);
  expect(webhookEvents.schemas['transfer.failed'].safeParse(otherEvent.payload).success).toBe(false);
  expect(extraField.name).toBe('collection.expired');
});

test('the catalog lists each event once, in the order it declares them, each with a schema of its data', () => {
  expect(webhookEvents.names).toEqual([
    'transfer.completed',
    'transfer.failed',
    'transfer.reversed',
    'collection.successful',
    'collection.expired',
    'reserved_account.created',
    'verification.verified',
    'verification.failed',
    'verification.expired',
    'webhook_endpoint.disabled',
    'ping',
  ]);
  for (const name of webhookEvents.names) {
    expect(isWebhookEventName(name)).toBe(true);
    expect(typeof webhookEvents.schemas[name].safeParse).toBe('function');
  }
  expect(isWebhookEventName('toString')).toBe(false);
});

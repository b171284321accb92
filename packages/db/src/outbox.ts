import type { EmittedEvent, WebhookEventName } from '@cowrie/events';
import type { Prisma } from './generated/client';
import type { DbOrTx } from './index';
import type { OutboxEvent } from './generated/client';
import { insertColumns } from './statement';

/**
 * Records an event of the workspace in the outbox: a name of the catalog
 * (`webhookEvents` of @cowrie/events) with its `data` as webhooks will deliver
 * it; another name, or data of another shape, does not compile. Call it with
 * the transaction that makes the state change it describes, so the event
 * exists exactly when the change does; the webhook relay delivers it later.
 * (The plain-pg hot paths write their event inside their own statement
 * instead, typed by `EmittedEvent` the same way.)
 */
/** The columns a plain-pg statement writes an outbox event with (its own INSERT INTO "OutboxEvent"), in this order. */
export const OUTBOX_EVENT_COLUMNS = insertColumns<OutboxEvent>()('workspaceId', 'event', 'payload', 'createdAt');

export async function recordEvent<N extends WebhookEventName>(tx: DbOrTx, workspaceId: number, event: EmittedEvent<N>): Promise<bigint> {
  const row = await tx.outboxEvent.create({
    data: { workspaceId, event: event.name, payload: event.payload as Prisma.InputJsonValue },
    select: { id: true },
  });
  return row.id;
}

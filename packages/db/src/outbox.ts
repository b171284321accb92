import type { Prisma } from './generated/client';
import type { DbOrTx } from './index';
import { utcTimestamp, type SqlQueryable } from './sql';

export interface RecordEventInput {
  workspaceId: number;
  /** Event name, e.g. `verification.verified`. */
  event: string;
  /** The event's `data` as webhooks will deliver it. */
  payload: Prisma.InputJsonValue;
}

/**
 * Records an event in the outbox. Call it with the transaction that makes the
 * state change it describes, so the event exists exactly when the change does;
 * the webhook relay delivers it later.
 */
export async function recordEvent(tx: DbOrTx | SqlQueryable, input: RecordEventInput): Promise<bigint> {
  if (!('outboxEvent' in tx)) {
    const { rows } = await tx.query<{ id: bigint }>({
      name: 'cowrie-record-event',
      text: 'INSERT INTO "OutboxEvent" ("workspaceId", "event", "payload", "createdAt") VALUES ($1, $2, $3, $4) RETURNING "id"',
      values: [input.workspaceId, input.event, JSON.stringify(input.payload), utcTimestamp(new Date())],
    });
    return BigInt(rows[0]!.id);
  }
  const row = await tx.outboxEvent.create({
    data: { workspaceId: input.workspaceId, event: input.event, payload: input.payload },
    select: { id: true },
  });
  return row.id;
}

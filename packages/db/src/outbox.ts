import type { Prisma } from './generated/client';
import type { DbOrTx } from './index';

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
 * the webhook relay delivers it later. (The plain-pg hot paths write their
 * event inside their own statement instead.)
 */
export async function recordEvent(tx: DbOrTx, input: RecordEventInput): Promise<bigint> {
  const row = await tx.outboxEvent.create({
    data: { workspaceId: input.workspaceId, event: input.event, payload: input.payload },
    select: { id: true },
  });
  return row.id;
}

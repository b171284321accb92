import { batchPerTurn, isSqlStatementRefused, utcTimestamp, type SqlQueryable } from '@cowrie/db';

/** A delivery row with what sending it needs from its endpoint. */
export interface DeliveryToSend {
  id: bigint;
  deliveryId: string;
  endpointId: number;
  outboxEventId: bigint | null;
  event: string;
  payload: unknown;
  completedAt: Date | null;
  endpoint: { url: string; active: boolean; secretEncrypted: string };
}

/** A delivery's final outcome, as its log row keeps it. */
export interface DeliveryOutcomeRecord {
  id: bigint;
  ok: boolean;
  statusCode: number | null;
  attempts: number;
  error: string | null;
  completedAt: Date;
}

/**
 * The sender's reads and writes of delivery rows. Concurrent jobs' requests
 * made in the same turn of the event loop go to Postgres as one statement
 * each way (batchPerTurn): under load one round trip serves many deliveries,
 * and alone a delivery waits for nothing. Each caller still gets its own
 * answer only once its statement has committed.
 */
export interface DeliveryStore {
  find(deliveryId: string): Promise<DeliveryToSend | null>;
  /** Records the outcome unless the row already has one; false when it had. */
  complete(outcome: DeliveryOutcomeRecord): Promise<boolean>;
  /** Drops a pending row (its endpoint was switched off). */
  discard(id: bigint): Promise<void>;
}

const FIND_DELIVERIES = `
  SELECT d."id", d."deliveryId", d."endpointId", d."outboxEventId", d."event", d."payload", d."completedAt",
    json_build_object('url', e."url", 'active', e."active", 'secretEncrypted', e."secretEncrypted") AS "endpoint"
  FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
  WHERE d."deliveryId" = ANY($1::uuid[])`;

const COMPLETE_DELIVERIES = `
  UPDATE "WebhookDelivery" d SET "ok" = u."ok", "statusCode" = u."statusCode", "attempts" = u."attempts", "error" = u."error", "completedAt" = u."completedAt"
  FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::text[], $6::timestamp[]) AS u("id", "ok", "statusCode", "attempts", "error", "completedAt")
  WHERE d."id" = u."id" AND d."completedAt" IS NULL
  RETURNING d."id"`;

export function createDeliveryStore(sql: SqlQueryable): DeliveryStore {
  const finder = batchPerTurn<string, DeliveryToSend | null>(
    async (deliveryIds) => {
      const { rows } = await sql.query<DeliveryToSend>({ name: 'cowrie-webhook-deliveries', text: FIND_DELIVERIES, values: [deliveryIds] });
      const byId = new Map(rows.map((r) => [r.deliveryId, r]));
      return deliveryIds.map((id) => byId.get(id.toLowerCase()) ?? null);
    },
    { maxBatchSize: 200 },
  );
  const completeTogether = async (outcomes: readonly DeliveryOutcomeRecord[]) => {
    const { rows } = await sql.query<{ id: bigint }>({
      name: 'cowrie-webhook-outcomes',
      text: COMPLETE_DELIVERIES,
      values: [
        outcomes.map((o) => String(o.id)),
        outcomes.map((o) => (o.ok ? 1 : 0)),
        outcomes.map((o) => o.statusCode),
        outcomes.map((o) => o.attempts),
        outcomes.map((o) => o.error),
        outcomes.map((o) => utcTimestamp(o.completedAt)),
      ],
    });
    const stored = new Set(rows.map((r) => String(r.id)));
    return outcomes.map((o) => stored.has(String(o.id)));
  };
  // These requests were sent already: an outcome that is not stored fails its
  // job, and the sweep would send it again. The statement only changes rows
  // without an outcome, so it is safe to run twice: a batch whose connection
  // was lost runs once more. A batch Postgres refused is stored outcome by
  // outcome (oneByOneWhenRefused), so one bad row fails alone.
  const completer = batchPerTurn<DeliveryOutcomeRecord, boolean>(
    (outcomes) => completeTogether(outcomes).catch((err: unknown) => (isSqlStatementRefused(err) ? Promise.reject(err) : completeTogether(outcomes))),
    { maxBatchSize: 200, oneByOneWhenRefused: true },
  );
  return {
    find: (deliveryId) => finder.load(deliveryId),
    complete: (outcome) => completer.load(outcome),
    async discard(id) {
      await sql.query({ text: 'DELETE FROM "WebhookDelivery" WHERE "id" = $1 AND "completedAt" IS NULL', values: [String(id)] });
    },
  };
}

import { batchPerTurn, columnList, defineStatement, isSqlStatementRefused, sqlColumn, sqlColumns, sqlList, sqlParam, type SqlQueryable } from '@cowrie/db';
import { webhookDeliveryColumns } from './webhook-columns';

/** A delivery row with what sending it needs from its endpoint. */
export interface DeliveryToSend {
  id: bigint;
  deliveryId: string;
  endpointId: number;
  outboxEventId: bigint | null;
  event: string;
  payload: unknown;
  completedAt: Date | null;
  endpoint: {
    url: string;
    active: boolean;
    secretEncrypted: string;
    /** The secret a roll replaced, still signing until previousSecretExpiresAt (ISO time with its offset, as JSON carries it). */
    previousSecretEncrypted: string | null;
    previousSecretExpiresAt: string | null;
  };
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

const FIND_DELIVERIES = defineStatement({
  name: 'cowrie-webhook-deliveries',
  params: { deliveryIds: sqlList(sqlParam.uuid) },
  text: (p) => `
  SELECT ${columnList(webhookDeliveryColumns, 'd')},
    json_build_object('url', e."url", 'active', e."active", 'secretEncrypted', e."secretEncrypted",
      'previousSecretEncrypted', e."previousSecretEncrypted", 'previousSecretExpiresAt', e."previousSecretExpiresAt" AT TIME ZONE 'UTC') AS "endpoint"
  FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
  WHERE d."deliveryId" = ANY(${p.deliveryIds}::uuid[])`,
  result: { ...webhookDeliveryColumns, endpoint: sqlColumn.json.as<DeliveryToSend['endpoint']>() },
});

const COMPLETED_COLUMNS = { id: webhookDeliveryColumns.id };
const COMPLETE_DELIVERIES = defineStatement({
  name: 'cowrie-webhook-outcomes',
  params: {
    outcomes: sqlColumns({
      id: sqlParam.bigint,
      ok: sqlParam.int,
      statusCode: sqlParam.int.orNull,
      attempts: sqlParam.int,
      error: sqlParam.text.orNull,
      completedAt: sqlParam.timestamp,
    }),
  },
  text: (p) => `
  UPDATE "WebhookDelivery" d SET "ok" = u."ok", "statusCode" = u."statusCode", "attempts" = u."attempts", "error" = u."error", "completedAt" = u."completedAt"
  FROM ${p.outcomes.unnest} AS u(${p.outcomes.columns})
  WHERE d."id" = u."id" AND d."completedAt" IS NULL
  RETURNING ${columnList(COMPLETED_COLUMNS, 'd')}`,
  result: COMPLETED_COLUMNS,
});

const DISCARD_DELIVERY = defineStatement({
  name: 'cowrie-webhook-discard',
  params: { id: sqlParam.bigint },
  text: (p) => `DELETE FROM "WebhookDelivery" WHERE "id" = ${p.id} AND "completedAt" IS NULL`,
});

export function createDeliveryStore(sql: SqlQueryable): DeliveryStore {
  const finder = batchPerTurn<string, DeliveryToSend | null>(
    async (deliveryIds) => {
      const { rows } = await FIND_DELIVERIES.run(sql, { deliveryIds });
      const byId = new Map(rows.map((r) => [r.deliveryId, r]));
      return deliveryIds.map((id) => byId.get(id.toLowerCase()) ?? null);
    },
    { maxBatchSize: 200 },
  );
  const completeTogether = async (outcomes: readonly DeliveryOutcomeRecord[]) => {
    const { rows } = await COMPLETE_DELIVERIES.run(sql, { outcomes: outcomes.map((o) => ({ ...o, ok: o.ok ? 1 : 0 })) });
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
      await DISCARD_DELIVERY.run(sql, { id });
    },
  };
}

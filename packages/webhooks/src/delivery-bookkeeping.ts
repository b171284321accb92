import {
  batchPerTurn,
  columnList,
  defineStatement,
  isSqlStatementRefused,
  OUTBOX_EVENT_COLUMNS,
  sqlColumn,
  sqlColumns,
  sqlParam,
  type SqlQueryable,
} from '@cowrie/db';
import { ENDPOINT_DISABLED_EVENT, type EventPayload } from '@cowrie/events';
import { webhookDeliveryColumns } from './webhook-columns';

/** A delivery row with what sending it needs from its endpoint. */
export interface DeliveryToSend {
  id: bigint;
  deliveryId: string;
  dispatch: number;
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
export interface StoredWebhookOutcome {
  id: bigint;
  ok: boolean;
  statusCode: number | null;
  attempts: number;
  error: string | null;
  completedAt: Date;
  /** The headers of the last attempt, as sent; null when nothing was sent. */
  requestHeaders: Record<string, string> | null;
  /** The start of the last response's body. */
  responseExcerpt: string | null;
}

/** One dispatch of a delivery: its first (0) or a resend. */
export interface DispatchKey {
  deliveryId: string;
  dispatch: number;
}

/** When an endpoint whose every dispatch fails is switched off (WEBHOOK_DISABLE_AFTER_SECONDS, WEBHOOK_DISABLE_MIN_FAILURES). */
export interface AutoDisablePolicy {
  afterSeconds: number;
  minFailures: number;
}

/** The event sent to a workspace's other endpoints when one is switched off. */
export { ENDPOINT_DISABLED_EVENT };

/** `data` of webhook_endpoint.disabled. */
export type EndpointDisabledEventData = EventPayload<typeof ENDPOINT_DISABLED_EVENT>;

/**
 * The sender's reads and writes of delivery rows. Concurrent jobs' requests
 * made in the same turn of the event loop go to Postgres as one statement
 * each way (batchPerTurn): under load one round trip serves many deliveries,
 * and alone a delivery waits for nothing. Each caller still gets its own
 * answer only once its statement has committed.
 */
export interface DeliveryStore {
  find(key: DispatchKey): Promise<DeliveryToSend | null>;
  /**
   * Records the outcome unless the row already has one (false when it had),
   * and with it the endpoint's run of failures: an active endpoint whose
   * every dispatch failed for the policy's span, at least its number of
   * times, is switched off in the same statement, with its reason, and a
   * webhook_endpoint.disabled event is written to the outbox.
   */
  complete(outcome: StoredWebhookOutcome): Promise<boolean>;
}

const FIND_DELIVERIES = defineStatement({
  name: 'cowrie-webhook-deliveries',
  params: { keys: sqlColumns({ deliveryId: sqlParam.uuid, dispatch: sqlParam.int }) },
  text: (p) => `
  SELECT ${columnList(webhookDeliveryColumns, 'd')},
    json_build_object('url', e."url", 'active', e."active", 'secretEncrypted', e."secretEncrypted",
      'previousSecretEncrypted', e."previousSecretEncrypted", 'previousSecretExpiresAt', e."previousSecretExpiresAt" AT TIME ZONE 'UTC') AS "endpoint"
  FROM ${p.keys.unnest} AS k(${p.keys.columns})
  JOIN "WebhookDelivery" d ON d."deliveryId" = k."deliveryId" AND d."dispatch" = k."dispatch"
  JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"`,
  result: { ...webhookDeliveryColumns, endpoint: sqlColumn.json.as<DeliveryToSend['endpoint']>() },
});

const COMPLETED_COLUMNS = { id: webhookDeliveryColumns.id };
/**
 * Outcomes, then the run of failures of each endpoint they reached, counted
 * from the rows this statement completed (so a batch run twice counts once):
 * a success ends the run, failures after the batch's last success extend it.
 * Endpoint rows are locked only when a run starts, grows or ends, in id
 * order; a healthy endpoint's row is read, never written.
 */
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
      requestHeaders: sqlParam.json.orNull,
      responseExcerpt: sqlParam.text.orNull,
    }),
    disableAfterSeconds: sqlParam.int,
    disableMinFailures: sqlParam.int,
    disabledEvent: sqlParam.text,
  },
  text: (p) => `
  WITH done AS (
    UPDATE "WebhookDelivery" d SET "ok" = u."ok", "statusCode" = u."statusCode", "attempts" = u."attempts", "error" = u."error",
      "completedAt" = u."completedAt", "requestHeaders" = u."requestHeaders", "responseExcerpt" = u."responseExcerpt"
    FROM ${p.outcomes.unnest} AS u(${p.outcomes.columns})
    WHERE d."id" = u."id" AND d."completedAt" IS NULL
    RETURNING d."id", d."endpointId", d."ok", d."completedAt"
  ),
  last_success AS (
    SELECT "endpointId", coalesce(max("completedAt") FILTER (WHERE "ok" = 1), '-infinity'::timestamp) AS "at" FROM done GROUP BY "endpointId"
  ),
  runs AS (
    SELECT d."endpointId", max(d."completedAt") AS "lastAt", bool_or(d."ok" = 1) AS "succeeded",
      count(*) FILTER (WHERE d."ok" = 0 AND d."completedAt" > s."at")::int AS "failures",
      min(d."completedAt") FILTER (WHERE d."ok" = 0 AND d."completedAt" > s."at") AS "firstFailureAt"
    FROM done d JOIN last_success s ON s."endpointId" = d."endpointId"
    GROUP BY d."endpointId"
  ),
  health AS (
    SELECT e."id", e."workspaceId", e."url", e."active", r."lastAt",
      CASE WHEN r."failures" = 0 THEN NULL WHEN r."succeeded" THEN r."firstFailureAt" ELSE coalesce(e."failingSince", r."firstFailureAt") END AS "failingSince",
      CASE WHEN r."succeeded" THEN r."failures" ELSE e."failureStreak" + r."failures" END AS "failureStreak"
    FROM "WebhookEndpoint" e JOIN runs r ON r."endpointId" = e."id"
    WHERE r."failures" > 0 OR e."failingSince" IS NOT NULL
    ORDER BY e."id"
    FOR NO KEY UPDATE OF e
  ),
  verdict AS (
    SELECT h.*, (h."active" AND h."failureStreak" >= ${p.disableMinFailures}
      AND h."failingSince" <= h."lastAt" - make_interval(secs => ${p.disableAfterSeconds})) AS "disable"
    FROM health h
  ),
  updated AS (
    UPDATE "WebhookEndpoint" e SET "failingSince" = v."failingSince", "failureStreak" = v."failureStreak",
      "active" = e."active" AND NOT v."disable",
      "disabledAt" = CASE WHEN v."disable" THEN v."lastAt" ELSE e."disabledAt" END,
      "disabledReason" = CASE WHEN v."disable"
        THEN format('Every delivery failed since %s UTC (%s failures); switched off automatically', to_char(v."failingSince", 'YYYY-MM-DD HH24:MI'), v."failureStreak")
        ELSE e."disabledReason" END,
      "updatedAt" = CASE WHEN v."disable" THEN v."lastAt" ELSE e."updatedAt" END
    FROM verdict v WHERE e."id" = v."id"
    RETURNING e."id", e."workspaceId", e."url", v."disable", e."disabledReason", e."disabledAt", e."failingSince", e."failureStreak"
  ),
  disabled_events AS (
    INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
    SELECT "workspaceId", ${p.disabledEvent},
      jsonb_build_object('endpoint_id', "id", 'url', "url", 'reason', "disabledReason",
        'failing_since', to_char("failingSince", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'failures', "failureStreak",
        'disabled_at', to_char("disabledAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
      "disabledAt"
    FROM updated WHERE "disable"
  )
  SELECT ${columnList(COMPLETED_COLUMNS)} FROM done`,
  result: COMPLETED_COLUMNS,
});

const dispatchKey = (key: DispatchKey) => `${key.deliveryId.toLowerCase()}/${key.dispatch}`;

export function createDeliveryStore(sql: SqlQueryable, autoDisable: AutoDisablePolicy): DeliveryStore {
  const finder = batchPerTurn<DispatchKey, DeliveryToSend | null>(
    async (keys) => {
      const { rows } = await FIND_DELIVERIES.run(sql, { keys });
      const byKey = new Map(rows.map((r) => [dispatchKey(r), r]));
      return keys.map((key) => byKey.get(dispatchKey(key)) ?? null);
    },
    { maxBatchSize: 200 },
  );
  const completeTogether = async (outcomes: readonly StoredWebhookOutcome[]) => {
    const { rows } = await COMPLETE_DELIVERIES.run(sql, {
      // In completion order, so a run of failures is counted from the right success.
      outcomes: [...outcomes].sort((a, b) => a.completedAt.getTime() - b.completedAt.getTime()).map((o) => ({ ...o, ok: o.ok ? 1 : 0 })),
      disableAfterSeconds: autoDisable.afterSeconds,
      disableMinFailures: autoDisable.minFailures,
      disabledEvent: ENDPOINT_DISABLED_EVENT,
    });
    const stored = new Set(rows.map((r) => String(r.id)));
    return outcomes.map((o) => stored.has(String(o.id)));
  };
  // These requests were sent already: an outcome that is not stored fails its
  // job, and the sweep would send it again. The statement only changes rows
  // without an outcome, so it is safe to run twice: a batch whose connection
  // was lost runs once more. A batch Postgres refused is stored outcome by
  // outcome (oneByOneWhenRefused), so one bad row fails alone.
  const completer = batchPerTurn<StoredWebhookOutcome, boolean>(
    (outcomes) => completeTogether(outcomes).catch((err: unknown) => (isSqlStatementRefused(err) ? Promise.reject(err) : completeTogether(outcomes))),
    { maxBatchSize: 200, oneByOneWhenRefused: true },
  );
  return {
    find: (key) => finder.load(key),
    complete: (outcome) => completer.load(outcome),
  };
}

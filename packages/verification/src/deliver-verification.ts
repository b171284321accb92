import { decryptSecret, type Logger, type Config, type Mode, type RedisClient } from '@cowrie/core';
import { batchPerTurnFor, columnList, defineStatement, sqlColumn, sqlJsonRows, sqlList, sqlParam, type InputOf, type SqlQueryable } from '@cowrie/db';
import type { VerificationChannel } from './channels';
import { markDeliveryFailed } from './create-verification';
import { findVerificationById, type VerificationWithMode } from './verification-reads';
import { DeliveryError, withoutCode, type DeliveryProviders } from './providers';
import { verificationColumns } from './verification-columns';
import { deleteVoiceCode, storeVoiceCode } from './voice-copy';

export interface DeliverVerificationDeps {
  /** Plain pg (@cowrie/db `sql.ts`): a delivery is a claim that reads the row, and a write. */
  sql: SqlQueryable;
  redis: RedisClient;
  config: Pick<Config, 'ENCRYPTION_KEY' | 'REDIS_KEY_PREFIX'>;
  providers: DeliveryProviders;
  log: Logger;
  now?: () => Date;
}

export type VerificationDelivery =
  | { kind: 'sent'; provider: string }
  | { kind: 'failed'; reason: string }
  /**
   * Nothing to do: the row is gone, already delivered, terminal or expired (a
   * replayed job); or `delivery outcome unknown`: an earlier run began sending
   * and died before recording the outcome, or this run's provider accepted the
   * code and recording that failed, so the code may have arrived and is not
   * sent again (the row stays pending).
   */
  | { kind: 'skipped'; status: string };

const DELIVERED_FIELDS = { id: sqlParam.int, at: sqlParam.timestamp, provider: sqlParam.text, providerReference: sqlParam.text.orNull };
type Delivered = InputOf<typeof DELIVERED_FIELDS>;

/** Many deliveries as one statement (as one JSON array), their rows locked in id order like every batched change of this table. */
const MARK_MANY_DELIVERED = defineStatement({
  name: 'cowrie-verifications-delivered',
  params: { deliveries: sqlJsonRows(DELIVERED_FIELDS) },
  text: (p) => `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset(${p.deliveries}::jsonb) AS i("id" int, "at" timestamp(3), "provider" text, "providerReference" text)
  ), locked AS MATERIALIZED (
    SELECT "id" FROM "Verification" WHERE "id" = ANY(ARRAY(SELECT "id" FROM input)) ORDER BY "id" FOR UPDATE
  )
  UPDATE "Verification" v SET "deliveredAt" = i."at", "provider" = i."provider", "providerReference" = i."providerReference", "updatedAt" = i."at"
  FROM locked l JOIN input i ON i."id" = l."id"
  WHERE v."id" = l."id" AND v."deliveredAt" IS NULL`,
});

/**
 * MARK_MANY_DELIVERED for one delivery, the usual case: the row's own UPDATE
 * locks it, so the batch's JSON input and its separate locking step (which
 * orders the locks of many rows) are left out.
 */
const MARK_ONE_DELIVERED = defineStatement({
  name: 'cowrie-verification-delivered',
  params: DELIVERED_FIELDS,
  text: (p) =>
    `UPDATE "Verification" SET "deliveredAt" = ${p.at}, "provider" = ${p.provider}, "providerReference" = ${p.providerReference}, "updatedAt" = ${p.at}
  WHERE "id" = ${p.id} AND "deliveredAt" IS NULL`,
});

/**
 * Claims rows for sending, in id order like every batched change of this
 * table: a row is claimed once, and only while pending and undelivered.
 */
const CLAIMED_COLUMNS = { id: verificationColumns.id };
const CLAIM_MANY = defineStatement({
  name: 'cowrie-verifications-claim-send',
  params: { ids: sqlList(sqlParam.int), now: sqlParam.timestamp },
  text: (p) => `
  WITH locked AS MATERIALIZED (
    SELECT "id" FROM "Verification" WHERE "id" = ANY(${p.ids}::int[]) ORDER BY "id" FOR UPDATE
  )
  UPDATE "Verification" v SET "sendStartedAt" = ${p.now}
  FROM locked l
  WHERE v."id" = l."id" AND v."sendStartedAt" IS NULL AND v."deliveredAt" IS NULL AND v."status" = 'pending'
  RETURNING ${columnList(CLAIMED_COLUMNS, 'v')}`,
  result: CLAIMED_COLUMNS,
});

const CLAIM_FIELDS = { id: sqlParam.int, at: sqlParam.timestamp };
/** A claimed row, with its workspace's mode. */
const CLAIMED_ROW = { ...verificationColumns, workspaceMode: sqlColumn.text.as<Mode>() };

/** Whether row `v` may be claimed for sending at `at`: pending, unclaimed, undelivered, not failed, unexpired, not voice. */
const sendableAt = (at: string) =>
  `v."sendStartedAt" IS NULL AND v."deliveredAt" IS NULL AND v."deliveryError" IS NULL AND v."status" = 'pending' AND v."expiresAt" > ${at} AND v."channel" <> 'voice'`;

/**
 * The usual delivery's read and claim as one statement: claims each row that
 * is pending, undelivered, not failed, unexpired at its job's time and not
 * yet claimed (CLAIM_MANY's rule and deliverVerification's checks), in id
 * order, and returns it with its workspace's mode. Voice rows are left out:
 * their code is stored for the call before the claim. A row it leaves is read
 * and judged on its own (deliverVerification).
 */
const CLAIM_AND_READ_MANY = defineStatement({
  name: 'cowrie-verifications-claim-read',
  params: { claims: sqlJsonRows(CLAIM_FIELDS) },
  text: (p) => `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset(${p.claims}::jsonb) AS i("id" int, "at" timestamp(3))
  ), locked AS MATERIALIZED (
    SELECT "id" FROM "Verification" WHERE "id" = ANY(ARRAY(SELECT "id" FROM input)) ORDER BY "id" FOR UPDATE
  )
  UPDATE "Verification" v SET "sendStartedAt" = i."at"
  FROM locked l JOIN input i ON i."id" = l."id", "Workspace" w
  WHERE v."id" = l."id" AND w."id" = v."workspaceId" AND ${sendableAt('i."at"')}
  RETURNING ${columnList(verificationColumns, 'v')}, w."mode" AS "workspaceMode"`,
  result: CLAIMED_ROW,
});

/**
 * CLAIM_AND_READ_MANY for one row, the usual case (one claim in a turn): the
 * same rule, the row's own UPDATE locking it, without the batch's JSON input
 * and its separate locking step.
 */
const CLAIM_AND_READ_ONE = defineStatement({
  name: 'cowrie-verification-claim-read',
  params: CLAIM_FIELDS,
  text: (p) => `
  UPDATE "Verification" v SET "sendStartedAt" = ${p.at}
  FROM "Workspace" w
  WHERE v."id" = ${p.id} AND w."id" = v."workspaceId" AND ${sendableAt(p.at)}
  RETURNING ${columnList(verificationColumns, 'v')}, w."mode" AS "workspaceMode"`,
  result: CLAIMED_ROW,
});

/**
 * The claiming reads of one turn share one statement (a lone one takes
 * CLAIM_AND_READ_ONE). A row is claimed for one caller only: a second job of
 * the same row in the same turn gets null.
 */
const claimingReader = batchPerTurnFor(
  async (sql: SqlQueryable, claims: readonly InputOf<typeof CLAIM_FIELDS>[]) => {
    if (claims.length === 1) return [(await CLAIM_AND_READ_ONE.run(sql, claims[0]!)).rows[0] ?? null];
    const first = new Map<number, number>();
    claims.forEach((claim, i) => first.has(claim.id) || first.set(claim.id, i));
    const { rows } = await CLAIM_AND_READ_MANY.run(sql, { claims: [...first.keys()].map((id) => claims[first.get(id)!]!) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return claims.map((claim, i): VerificationWithMode | null => (first.get(claim.id) === i ? (byId.get(claim.id) ?? null) : null));
  },
  { oneByOneWhenRefused: true },
);

/**
 * The claims of one turn share one statement; each caller learns whether its
 * row was claimed. A row is claimed for one caller only: a second claim of the
 * same row in the same turn is refused.
 */
const sendClaimer = batchPerTurnFor(
  async (sql: SqlQueryable, ids: readonly number[]) => {
    const { rows } = await CLAIM_MANY.run(sql, { ids: [...new Set(ids)], now: new Date() });
    const claimed = new Set(rows.map((r) => r.id));
    return ids.map((id, i) => claimed.has(id) && ids.indexOf(id) === i);
  },
  { oneByOneWhenRefused: true },
);

/**
 * Records sent codes (only on rows not yet marked delivered): the deliveries
 * of one turn share one statement (a lone one takes MARK_ONE_DELIVERED); if
 * Postgres refuses it, each is written on its own.
 */
const deliveredMarker = batchPerTurnFor(
  async (sql: SqlQueryable, all: readonly Delivered[]) => {
    if (all.length === 1) await MARK_ONE_DELIVERED.run(sql, all[0]!);
    else await MARK_MANY_DELIVERED.run(sql, { deliveries: all });
    return all.map(() => true as const);
  },
  { oneByOneWhenRefused: true },
);

/**
 * Delivers one verification's code (the dispatcher's job). It acts only on a
 * pending, undelivered, unexpired row, and sends only after claiming it
 * (`sendStartedAt`), so a replayed job never sends twice, even when the run
 * before it died while the provider was taking the message: a code is
 * delivered at most once per start. The usual delivery reads and claims its
 * row in one statement (claimingReader); a row that statement leaves (voice,
 * or a row to skip) and a code that cannot be unsealed take the read, the
 * checks and the claim one by one. A provider refusal marks the row `failed`
 * with a reason that holds no secret; the gateway turns it into `Could not
 * deliver the code: …`. A failure to record a code the provider accepted does
 * not (see send).
 */
export async function deliverVerification(deps: DeliverVerificationDeps, job: { verificationId: number; sealedCode: string }): Promise<VerificationDelivery> {
  const now = deps.now?.() ?? new Date();
  let unsealed: string | null = null;
  try {
    unsealed = decryptSecret(job.sealedCode, deps.config.ENCRYPTION_KEY);
  } catch {
    // A job sealed under another key (rotated ENCRYPTION_KEY) or tampered with: judged below, after the row is read.
  }
  if (unsealed !== null) {
    const claimed = await claimingReader(deps.sql).load({ id: job.verificationId, at: now });
    if (claimed) return send(deps, claimed, unsealed, now);
  }

  const row = await findVerificationById(deps.sql, job.verificationId);
  if (!row) return { kind: 'skipped', status: 'missing' };
  if (row.status !== 'pending' || row.deliveredAt || row.deliveryError) return { kind: 'skipped', status: row.status };
  const remainingSeconds = (row.expiresAt.getTime() - now.getTime()) / 1000;
  if (remainingSeconds <= 0) return { kind: 'skipped', status: 'expired' };
  if (unsealed === null) {
    const reason = 'the code could not be unsealed';
    await markDeliveryFailed(deps.sql, row.id, reason);
    return { kind: 'failed', reason };
  }
  const code = unsealed;

  if (row.channel === 'voice') await storeVoiceCode(deps.redis, deps.config, row.reference, code, remainingSeconds);
  // The claim comes last, right before the provider: nothing between it and the send can fail and leave a claimed row unsent.
  if (row.sendStartedAt || !(await sendClaimer(deps.sql).load(row.id))) {
    deps.log.warn({ verificationId: row.id }, 'code delivery outcome unknown (an earlier run began sending and stopped); not sent again');
    return { kind: 'skipped', status: 'delivery outcome unknown' };
  }
  return send(deps, row, code, now);
}

/** How long to wait before each further try of a delivered mark that failed (ms): three more tries within a second. */
const MARK_RETRY_DELAYS_MS = [50, 200, 500];

/**
 * Marks a sent code delivered, trying again briefly when the write fails (a
 * statement timeout, a pool out of connections, a failover); throws the last
 * error when every try failed.
 */
async function markDelivered(deps: DeliverVerificationDeps, delivered: Delivered): Promise<void> {
  for (let tried = 0; ; tried += 1) {
    try {
      await deliveredMarker(deps.sql).load(delivered);
      return;
    } catch (err) {
      const delay = MARK_RETRY_DELAYS_MS[tried];
      if (delay === undefined) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Sends the code of a claimed row and records the outcome. Only the provider's
 * own failure marks the row `failed`: a code the provider accepted whose
 * delivered mark cannot be written (after a few brief tries) leaves the row
 * `pending` and claimed, like a run that died mid-send (`delivery outcome
 * unknown`): it is not sent again, and the code that arrived can be checked.
 */
async function send(deps: DeliverVerificationDeps, row: VerificationWithMode, code: string, now: Date): Promise<VerificationDelivery> {
  const remainingSeconds = (row.expiresAt.getTime() - now.getTime()) / 1000;
  const channel = row.channel as VerificationChannel;
  const provider = deps.providers.forChannel(channel, row.workspaceMode);
  let receipt: Awaited<ReturnType<typeof provider.send>>;
  try {
    receipt = await provider.send({
      channel,
      destination: row.destination,
      code,
      reference: row.reference,
      validForMinutes: Math.max(1, Math.ceil(remainingSeconds / 60)),
    });
  } catch (err) {
    const known = err instanceof DeliveryError;
    // Provider texts are short and ours, but never trust them to leave the code out.
    const reason = withoutCode(known ? err.message : 'the provider failed unexpectedly', code);
    deps.log.warn(
      {
        verificationId: row.id,
        provider: provider.id,
        reason,
        ...(known
          ? {}
          : {
              error: withoutCode(String((err as Error)?.message ?? err), code),
            }),
      },
      'code delivery failed',
    );
    if (channel === 'voice') await deleteVoiceCode(deps.redis, deps.config, row.reference).catch(() => undefined);
    await markDeliveryFailed(deps.sql, row.id, reason);
    return { kind: 'failed', reason };
  }

  const providerReference = receipt.providerReference ?? null;
  try {
    await markDelivered(deps, { id: row.id, at: deps.now?.() ?? new Date(), provider: provider.id, providerReference });
  } catch (err) {
    deps.log.error(
      { verificationId: row.id, provider: provider.id, providerReference, error: withoutCode(String((err as Error)?.message ?? err), code) },
      'code delivery outcome unknown (the provider accepted the code, recording it failed); the row stays pending, not sent again',
    );
    return { kind: 'skipped', status: 'delivery outcome unknown' };
  }
  return { kind: 'sent', provider: provider.id };
}

import { decryptSecret, type Logger, type Config, type RedisClient } from '@cowrie/core';
import { batchPerTurnFor, columnList, defineStatement, sqlJsonRows, sqlList, sqlParam, type InputOf, type SqlQueryable } from '@cowrie/db';
import type { VerificationChannel } from './channels';
import { markDeliveryFailed } from './create-verification';
import { findVerificationById } from './verification-reads';
import { DeliveryError, type DeliveryProviders } from './providers';
import { verificationColumns } from './verification-columns';
import { deleteVoiceCode, storeVoiceCode } from './voice-copy';

export interface DeliverVerificationDeps {
  /** Plain pg (@cowrie/db `sql.ts`): a delivery is one read and one write. */
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
   * and died before recording the outcome, so the code may have arrived and is
   * not sent again.
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

/** The claims of one turn share one statement; each caller learns whether its row was claimed. */
const sendClaimer = batchPerTurnFor(
  async (sql: SqlQueryable, ids: readonly number[]) => {
    const { rows } = await CLAIM_MANY.run(sql, { ids: [...new Set(ids)], now: new Date() });
    const claimed = new Set(rows.map((r) => r.id));
    return ids.map((id) => claimed.has(id));
  },
  { oneByOneWhenRefused: true },
);

/**
 * Records sent codes (only on rows not yet marked delivered): the deliveries
 * of one turn share one statement; if Postgres refuses it, each is written on
 * its own.
 */
const deliveredMarker = batchPerTurnFor(
  async (sql: SqlQueryable, all: readonly Delivered[]) => {
    await MARK_MANY_DELIVERED.run(sql, { deliveries: all });
    return all.map(() => true as const);
  },
  { oneByOneWhenRefused: true },
);

/**
 * Delivers one verification's code (the dispatcher's job). It reloads the row
 * and acts only on a pending, undelivered, unexpired one, and sends only after
 * claiming it (`sendStartedAt`), so a replayed job never sends twice, even
 * when the run before it died while the provider was taking the message: a
 * code is delivered at most once per start. A provider refusal marks the row `failed` with a reason
 * that holds no secret; the gateway turns it into `Could not deliver the code: …`.
 */
export async function deliverVerification(deps: DeliverVerificationDeps, job: { verificationId: number; sealedCode: string }): Promise<VerificationDelivery> {
  const now = deps.now?.() ?? new Date();
  const row = await findVerificationById(deps.sql, job.verificationId);
  if (!row) return { kind: 'skipped', status: 'missing' };
  if (row.status !== 'pending' || row.deliveredAt || row.deliveryError) return { kind: 'skipped', status: row.status };
  const remainingSeconds = (row.expiresAt.getTime() - now.getTime()) / 1000;
  if (remainingSeconds <= 0) return { kind: 'skipped', status: 'expired' };

  let code: string;
  try {
    code = decryptSecret(job.sealedCode, deps.config.ENCRYPTION_KEY);
  } catch {
    // A job sealed under another key (rotated ENCRYPTION_KEY) or tampered with.
    const reason = 'the code could not be unsealed';
    await markDeliveryFailed(deps.sql, row.id, reason);
    return { kind: 'failed', reason };
  }

  const channel = row.channel as VerificationChannel;
  const provider = deps.providers.forChannel(channel, row.workspaceMode);
  if (channel === 'voice') await storeVoiceCode(deps.redis, deps.config, row.reference, code, remainingSeconds);
  // The claim comes last, right before the provider: nothing between it and the send can fail and leave a claimed row unsent.
  if (row.sendStartedAt || !(await sendClaimer(deps.sql).load(row.id))) {
    deps.log.warn({ verificationId: row.id }, 'code delivery outcome unknown (an earlier run began sending and stopped); not sent again');
    return { kind: 'skipped', status: 'delivery outcome unknown' };
  }
  try {
    const receipt = await provider.send({
      channel,
      destination: row.destination,
      code,
      reference: row.reference,
      validForMinutes: Math.max(1, Math.ceil(remainingSeconds / 60)),
    });
    await deliveredMarker(deps.sql).load({
      id: row.id,
      at: deps.now?.() ?? new Date(),
      provider: provider.id,
      providerReference: receipt.providerReference ?? null,
    });
    return { kind: 'sent', provider: provider.id };
  } catch (err) {
    const known = err instanceof DeliveryError;
    // Provider texts are short and ours, but never trust them to leave the code out.
    const reason = (known ? err.message : 'the provider failed unexpectedly').split(code).join('[code]');
    deps.log.warn(
      {
        verificationId: row.id,
        provider: provider.id,
        reason,
        ...(known
          ? {}
          : {
              error: String((err as Error)?.message ?? err)
                .split(code)
                .join('[code]'),
            }),
      },
      'code delivery failed',
    );
    if (channel === 'voice') await deleteVoiceCode(deps.redis, deps.config, row.reference).catch(() => undefined);
    await markDeliveryFailed(deps.sql, row.id, reason);
    return { kind: 'failed', reason };
  }
}

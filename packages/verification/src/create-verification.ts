import { randomUUID } from 'node:crypto';
import { encryptSecret, type Config, type Mode } from '@cowrie/core';
import {
  batchPerTurnFor,
  columnList,
  defineStatement,
  insertColumns,
  sqlJsonRows,
  sqlParam,
  type InputOf,
  type SqlQueryable,
  type VerificationModel,
} from '@cowrie/db';
import type { VerificationChannel } from './channels';
import { generateCode, hashCode, newCodeSalt } from './code';
import { providerIdFor } from './providers';
import { verificationColumns } from './verification-columns';

export interface CreateVerificationInput {
  workspaceId: number;
  /** The workspace's mode: test mode always delivers through the sandbox. */
  mode: Mode;
  channel: VerificationChannel;
  /** Already normalised (see ZStartVerificationRequest). */
  destination: string;
  /** Operator-supplied code; a 4-digit code is generated when absent. */
  code?: string;
  metadata?: Record<string, unknown>;
  /** Default: now. */
  now?: Date;
}

export interface CreatedVerification {
  verification: VerificationModel;
  /** The code sealed with ENCRYPTION_KEY for the dispatcher's job; the only form the plaintext leaves in. */
  sealedCode: string;
}

type CreateConfig = Pick<
  Config,
  'ENCRYPTION_KEY' | 'VERIFY_CODE_TTL_SECONDS' | 'VERIFY_MAX_ATTEMPTS' | 'VERIFY_SMS_PROVIDER' | 'VERIFY_EMAIL_PROVIDER' | 'VERIFY_WHATSAPP_PROVIDER'
>;

/** One new row's values (INSERT_VERIFICATIONS). */
const NEW_ROW_FIELDS = {
  reference: sqlParam.uuid,
  workspaceId: sqlParam.int,
  channel: sqlParam.text,
  destination: sqlParam.text,
  codeHash: sqlParam.text,
  codeSalt: sqlParam.text,
  maxAttempts: sqlParam.int,
  provider: sqlParam.text,
  metadata: sqlParam.json.orNull,
  expiresAt: sqlParam.timestamp,
  createdAt: sqlParam.timestamp,
};
type NewVerificationRow = InputOf<typeof NEW_ROW_FIELDS>;

const COLUMNS = insertColumns<VerificationModel>()(
  'reference',
  'workspaceId',
  'channel',
  'destination',
  'status',
  'codeHash',
  'codeSalt',
  'maxAttempts',
  'provider',
  'metadata',
  'expiresAt',
  'createdAt',
  'updatedAt',
);

/** Many new rows as one statement (the rows as one JSON array). */
const INSERT_VERIFICATIONS = defineStatement({
  name: 'cowrie-create-verifications',
  params: { rows: sqlJsonRows(NEW_ROW_FIELDS) },
  text: (p) => `INSERT INTO "Verification" (${COLUMNS})
  SELECT "reference"::uuid, "workspaceId", "channel", "destination", 'pending', "codeHash", "codeSalt", "maxAttempts", "provider", "metadata", "expiresAt", "createdAt", "createdAt"
  FROM jsonb_to_recordset(${p.rows}::jsonb) AS r("reference" text, "workspaceId" int, "channel" text, "destination" text, "codeHash" text, "codeSalt" text,
    "maxAttempts" int, "provider" text, "metadata" jsonb, "expiresAt" timestamp(3), "createdAt" timestamp(3))
  RETURNING ${columnList(verificationColumns)}`,
  result: verificationColumns,
});

/** INSERT_VERIFICATIONS for one start, the usual case: its values as parameters, not a JSON array to unpack. */
const INSERT_VERIFICATION = defineStatement({
  name: 'cowrie-create-verification',
  params: NEW_ROW_FIELDS,
  text: (p) => `INSERT INTO "Verification" (${COLUMNS})
  VALUES (${p.reference}::uuid, ${p.workspaceId}, ${p.channel}, ${p.destination}, 'pending', ${p.codeHash}, ${p.codeSalt}, ${p.maxAttempts}, ${p.provider}, ${p.metadata}::jsonb,
    ${p.expiresAt}::timestamp(3), ${p.createdAt}::timestamp(3), ${p.createdAt}::timestamp(3))
  RETURNING ${columnList(verificationColumns)}`,
  result: verificationColumns,
});

/**
 * The starts that arrive together are inserted as one statement (a start
 * alone, the usual case, as INSERT_VERIFICATION); if Postgres refuses it,
 * each row is inserted on its own (batchPerTurn's oneByOneWhenRefused), so
 * one bad row stays its own failure. Any other error (a lost connection: the
 * insert may have committed) fails them all rather than risk a second row.
 */
async function insertMany(sql: SqlQueryable, news: readonly NewVerificationRow[]): Promise<Array<VerificationModel | Error>> {
  const { rows } = news.length === 1 ? await INSERT_VERIFICATION.run(sql, news[0]!) : await INSERT_VERIFICATIONS.run(sql, { rows: news });
  const byReference = new Map(rows.map((row) => [row.reference, row]));
  return news.map((r) => byReference.get(r.reference) ?? new Error(`verification ${r.reference} was not returned by its insert`));
}

const verificationInserter = batchPerTurnFor(insertMany, { oneByOneWhenRefused: true });

/**
 * Creates a `pending` verification holding only sha256(salt:code), and returns
 * the code sealed (AES-256-GCM) for delivery. One prepared statement on plain
 * pg, shared by the starts of one turn (a start is on the API's hot path).
 */
export async function createVerification(sql: SqlQueryable, config: CreateConfig, input: CreateVerificationInput): Promise<CreatedVerification> {
  const now = input.now ?? new Date();
  const code = input.code ?? generateCode();
  const salt = newCodeSalt();
  const verification = await verificationInserter(sql).load({
    reference: randomUUID(),
    workspaceId: input.workspaceId,
    channel: input.channel,
    destination: input.destination,
    codeHash: hashCode(code, salt),
    codeSalt: salt,
    maxAttempts: config.VERIFY_MAX_ATTEMPTS,
    provider: providerIdFor(config, input.channel, input.mode),
    metadata: input.metadata ?? null,
    expiresAt: new Date(now.getTime() + config.VERIFY_CODE_TTL_SECONDS * 1000),
    createdAt: now,
  });
  return { verification, sealedCode: encryptSecret(code, config.ENCRYPTION_KEY) };
}

const MARK_DELIVERY_FAILED = defineStatement({
  name: 'cowrie-verification-delivery-failed',
  params: { id: sqlParam.int, reason: sqlParam.text, now: sqlParam.timestamp },
  text: (p) =>
    `UPDATE "Verification" SET "status" = 'failed', "deliveryError" = ${p.reason}, "updatedAt" = ${p.now} WHERE "id" = ${p.id} AND "status" = 'pending' AND "deliveredAt" IS NULL`,
});

/**
 * Marks a verification whose code could not be delivered `failed` (the row is
 * kept). Only a pending, undelivered row changes, so a
 * late or repeated failure never overwrites a delivered or checked one.
 */
export async function markDeliveryFailed(sql: SqlQueryable, verificationId: number, reason: string, now = new Date()): Promise<boolean> {
  const { rowCount } = await MARK_DELIVERY_FAILED.run(sql, { id: verificationId, reason: reason.slice(0, 300), now });
  return rowCount === 1;
}

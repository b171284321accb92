import { randomUUID } from 'node:crypto';
import { encryptSecret, type TConfig } from '@cowrie/core';
import { utcTimestamp, type DbOrTx, type SqlQueryable, type VerificationModel } from '@cowrie/db';
import type { TVerificationChannel } from './channels';
import { generateCode, hashCode, newCodeSalt } from './code';
import { providerIdFor } from './providers';
import { isReference } from './schemas';

export interface CreateVerificationInput {
  workspaceId: number;
  channel: TVerificationChannel;
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

type CreateConfig = Pick<TConfig, 'ENCRYPTION_KEY' | 'VERIFY_CODE_TTL_SECONDS' | 'VERIFY_MAX_ATTEMPTS' | 'VERIFY_SMS_PROVIDER' | 'VERIFY_EMAIL_PROVIDER'>;

/**
 * Creates a `pending` verification holding only sha256(salt:code), and returns
 * the code sealed (AES-256-GCM) for delivery.
 */
export async function createVerification(sql: SqlQueryable, config: CreateConfig, input: CreateVerificationInput): Promise<CreatedVerification> {
  const now = input.now ?? new Date();
  const code = input.code ?? generateCode();
  const salt = newCodeSalt();
  // One prepared statement on plain pg: a start is on the API's hot path.
  const { rows } = await sql.query<VerificationModel>({
    name: 'cowrie-create-verification',
    text: `INSERT INTO "Verification" ("reference", "workspaceId", "channel", "destination", "status", "codeHash", "codeSalt", "maxAttempts",
             "provider", "metadata", "expiresAt", "createdAt", "updatedAt")
           VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
    values: [
      randomUUID(), input.workspaceId, input.channel, input.destination, hashCode(code, salt), salt, config.VERIFY_MAX_ATTEMPTS,
      providerIdFor(config, input.channel), input.metadata === undefined ? null : JSON.stringify(input.metadata),
      utcTimestamp(new Date(now.getTime() + config.VERIFY_CODE_TTL_SECONDS * 1000)), utcTimestamp(now),
    ],
  });
  return { verification: rows[0]!, sealedCode: encryptSecret(code, config.ENCRYPTION_KEY) };
}

/**
 * Marks a verification whose code could not be delivered `failed` (the row is
 * kept; interface: States). Only a pending, undelivered row changes, so a
 * late or repeated failure never overwrites a delivered or checked one.
 */
export async function markDeliveryFailed(sql: SqlQueryable, verificationId: number, reason: string, now = new Date()): Promise<boolean> {
  const { rowCount } = await sql.query({
    name: 'cowrie-verification-delivery-failed',
    text: `UPDATE "Verification" SET "status" = 'failed', "deliveryError" = $2, "updatedAt" = $3 WHERE "id" = $1 AND "status" = 'pending' AND "deliveredAt" IS NULL`,
    values: [verificationId, reason.slice(0, 300), utcTimestamp(now)],
  });
  return rowCount === 1;
}

/** A verification by its row id (the dispatcher's job names it so). */
export async function findVerificationById(sql: SqlQueryable, id: number): Promise<VerificationModel | null> {
  const { rows } = await sql.query<VerificationModel>({ name: 'cowrie-verification-by-id', text: 'SELECT * FROM "Verification" WHERE "id" = $1', values: [id] });
  return rows[0] ?? null;
}

/** A verification by its public reference, within one workspace only. */
export async function findVerification(db: DbOrTx, workspaceId: number, reference: string): Promise<VerificationModel | null> {
  if (!isReference(reference)) return null;
  return db.verification.findFirst({ where: { reference: reference.toLowerCase(), workspaceId } });
}

import { encryptSecret, type TConfig } from '@cowrie/core';
import type { DbOrTx, Prisma, VerificationModel } from '@cowrie/db';
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
export async function createVerification(db: DbOrTx, config: CreateConfig, input: CreateVerificationInput): Promise<CreatedVerification> {
  const now = input.now ?? new Date();
  const code = input.code ?? generateCode();
  const salt = newCodeSalt();
  const verification = await db.verification.create({
    data: {
      workspaceId: input.workspaceId,
      channel: input.channel,
      destination: input.destination,
      status: 'pending',
      codeHash: hashCode(code, salt),
      codeSalt: salt,
      maxAttempts: config.VERIFY_MAX_ATTEMPTS,
      provider: providerIdFor(config, input.channel),
      metadata: input.metadata as Prisma.InputJsonValue | undefined,
      expiresAt: new Date(now.getTime() + config.VERIFY_CODE_TTL_SECONDS * 1000),
      createdAt: now,
    },
  });
  return { verification, sealedCode: encryptSecret(code, config.ENCRYPTION_KEY) };
}

/**
 * Marks a verification whose code could not be delivered `failed` (the row is
 * kept; interface: States). Only a pending, undelivered row changes, so a
 * late or repeated failure never overwrites a delivered or checked one.
 */
export async function markDeliveryFailed(db: DbOrTx, verificationId: number, reason: string, now = new Date()): Promise<boolean> {
  const { count } = await db.verification.updateMany({
    where: { id: verificationId, status: 'pending', deliveredAt: null },
    data: { status: 'failed', deliveryError: reason.slice(0, 300), updatedAt: now },
  });
  return count === 1;
}

/** A verification by its public reference, within one workspace only. */
export async function findVerification(db: DbOrTx, workspaceId: number, reference: string): Promise<VerificationModel | null> {
  if (!isReference(reference)) return null;
  return db.verification.findFirst({ where: { reference: reference.toLowerCase(), workspaceId } });
}

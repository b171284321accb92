import { modelColumns, sqlColumn, type VerificationModel } from '@cowrie/db';

/**
 * Every column of `Verification`, for the plain-pg statements that read rows
 * (`columnList(verificationColumns)`), typed by the model: a row read with all
 * of them is a `VerificationModel` only while this lists every field.
 */
export const verificationColumns = modelColumns<VerificationModel>()('Verification', {
  id: sqlColumn.int,
  reference: sqlColumn.uuid,
  workspaceId: sqlColumn.int,
  channel: sqlColumn.text,
  destination: sqlColumn.text,
  status: sqlColumn.text,
  codeHash: sqlColumn.text,
  codeSalt: sqlColumn.text,
  attempts: sqlColumn.int,
  maxAttempts: sqlColumn.int,
  provider: sqlColumn.text,
  providerReference: sqlColumn.text.orNull,
  metadata: sqlColumn.json.orNull,
  expiresAt: sqlColumn.timestamp,
  verifiedAt: sqlColumn.timestamp.orNull,
  sendStartedAt: sqlColumn.timestamp.orNull,
  deliveredAt: sqlColumn.timestamp.orNull,
  deliveryError: sqlColumn.text.orNull,
  deliveryStatus: sqlColumn.text.orNull,
  deliveryReportedAt: sqlColumn.timestamp.orNull,
  createdAt: sqlColumn.timestamp,
  updatedAt: sqlColumn.timestamp,
});

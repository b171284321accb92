-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "previousSecretEncrypted" TEXT,
ADD COLUMN     "previousSecretExpiresAt" TIMESTAMP(3);

-- DropIndex
DROP INDEX "WebhookDelivery_deliveryId_key";

-- DropIndex
DROP INDEX "WebhookDelivery_outboxEventId_endpointId_key";

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "disabledAt" TIMESTAMP(3),
ADD COLUMN     "disabledReason" TEXT,
ADD COLUMN     "failingSince" TIMESTAMP(3),
ADD COLUMN     "failureStreak" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "dispatch" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "requestHeaders" JSONB,
ADD COLUMN     "responseExcerpt" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_deliveryId_dispatch_key" ON "WebhookDelivery"("deliveryId", "dispatch");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_outboxEventId_endpointId_dispatch_key" ON "WebhookDelivery"("outboxEventId", "endpointId", "dispatch");

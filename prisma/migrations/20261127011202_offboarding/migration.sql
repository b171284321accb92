-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "createdByUserId" INTEGER;

-- AlterTable
ALTER TABLE "DashboardUser" ADD COLUMN     "invitedByUserId" INTEGER,
ADD COLUMN     "oneTimePasswordExpiresAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "ApiKey_createdByUserId_idx" ON "ApiKey"("createdByUserId");

-- CreateIndex
CREATE INDEX "DashboardUser_invitedByUserId_idx" ON "DashboardUser"("invitedByUserId");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_createdByUserId_fkey" FOREIGN KEY ("createdByUserId") REFERENCES "DashboardUser"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DashboardUser" ADD CONSTRAINT "DashboardUser_invitedByUserId_fkey" FOREIGN KEY ("invitedByUserId") REFERENCES "DashboardUser"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Invitations made before this migration expire 72 hours after they were made, as new ones do.
UPDATE "DashboardUser" SET "oneTimePasswordExpiresAt" = "createdAt" + interval '72 hours' WHERE "passwordChangeRequired" AND "disabledAt" IS NULL;

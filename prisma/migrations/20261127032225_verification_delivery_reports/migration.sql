-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "deliveryReportedAt" TIMESTAMP(3),
ADD COLUMN     "deliveryStatus" TEXT;

-- CreateIndex
CREATE INDEX "Verification_provider_providerReference_idx" ON "Verification"("provider", "providerReference");

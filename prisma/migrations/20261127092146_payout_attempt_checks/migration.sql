-- AlterTable
ALTER TABLE "PayoutAttempt" ADD COLUMN     "checkedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "PayoutAttempt_outcome_checkedAt_idx" ON "PayoutAttempt"("outcome", "checkedAt");

-- DropIndex
DROP INDEX "LedgerTransaction_workspaceId_requestKey_key";

-- AlterTable
ALTER TABLE "PayoutDispatch" ADD COLUMN     "reversalCheckAt" TIMESTAMP(3),
ADD COLUMN     "reversalChecks" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "SandboxTransfer" ADD COLUMN     "notifiedAt" TIMESTAMP(3),
ADD COLUMN     "reverseAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "UnmatchedPayoutEvent" (
    "id" SERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "received" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "UnmatchedPayoutEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "UnmatchedPayoutEvent_provider_event_reference_key" ON "UnmatchedPayoutEvent"("provider", "event", "reference");

-- CreateIndex
CREATE INDEX "PayoutDispatch_reversalCheckAt_idx" ON "PayoutDispatch"("reversalCheckAt");

-- CreateIndex
CREATE INDEX "SandboxTransfer_reverseAt_idx" ON "SandboxTransfer"("reverseAt");

-- Added by hand (the Prisma schema language has no partial indexes): one
-- Idempotency-Key header opens at most one payout per workspace among those
-- that can still move money. A payout the rail definitely did not pay
-- (`failed`, its hold released) leaves the index, so a retry with the same key
-- runs as a new attempt (interface: only successful responses are stored for
-- replay, so failed requests can be retried). Two such retries racing still
-- open one.
CREATE UNIQUE INDEX "LedgerTransaction_workspaceId_requestKey_open_key" ON "LedgerTransaction"("workspaceId", "requestKey") WHERE "requestKey" IS NOT NULL AND "status" <> 'failed';

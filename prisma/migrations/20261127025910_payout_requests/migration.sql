-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "payoutApprovalThresholds" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "PayoutRequest" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "currency" TEXT NOT NULL,
    "amount" DECIMAL(30,6) NOT NULL,
    "counterpartyName" TEXT,
    "counterpartyAccount" TEXT NOT NULL,
    "counterpartyBank" TEXT,
    "beneficiaryId" INTEGER,
    "narration" TEXT,
    "body" JSONB NOT NULL,
    "requestKey" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "requestedByUserId" INTEGER NOT NULL,
    "requestedByEmail" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedByUserId" INTEGER,
    "decidedByEmail" TEXT,
    "decidedAt" TIMESTAMP(3),
    "rejectionReason" TEXT,
    "transactionId" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRequest_transactionId_key" ON "PayoutRequest"("transactionId");

-- CreateIndex
CREATE INDEX "PayoutRequest_workspaceId_createdAt_id_idx" ON "PayoutRequest"("workspaceId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "PayoutRequest_workspaceId_status_createdAt_id_idx" ON "PayoutRequest"("workspaceId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRequest_workspaceId_requestKey_key" ON "PayoutRequest"("workspaceId", "requestKey");

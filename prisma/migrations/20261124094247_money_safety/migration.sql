-- AlterTable
ALTER TABLE "LedgerTransaction" ADD COLUMN     "requestHash" TEXT,
ADD COLUMN     "requestKey" TEXT;

-- AlterTable
ALTER TABLE "PayoutDispatch" ADD COLUMN     "checks" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "nextCheckAt" TIMESTAMP(3),
ADD COLUMN     "unknownSince" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "AccountOpening" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "scope" TEXT NOT NULL,
    "railReference" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccountOpening_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxTransfer" (
    "reference" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 1,
    "result" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SandboxTransfer_pkey" PRIMARY KEY ("reference")
);

-- CreateIndex
CREATE UNIQUE INDEX "AccountOpening_workspaceId_scope_key" ON "AccountOpening"("workspaceId", "scope");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerTransaction_workspaceId_type_idempotencyKey_key" ON "LedgerTransaction"("workspaceId", "type", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerTransaction_workspaceId_requestKey_key" ON "LedgerTransaction"("workspaceId", "requestKey");

-- CreateIndex
CREATE INDEX "PayoutDispatch_nextCheckAt_idx" ON "PayoutDispatch"("nextCheckAt");

-- The old ledger key index goes only once its replacement exists.
-- DropIndex
DROP INDEX "LedgerTransaction_workspaceId_idempotencyKey_key";

-- The ledger invariants, refused by the database itself (the Prisma schema
-- language has no CHECK constraints, so they live here). A wallet never holds
-- a negative amount nor more than its balance, so available = balance - held
-- is never negative. Money moves only in positive amounts. Every entry moves
-- the balances the way its kind says.
ALTER TABLE "Wallet" ADD CONSTRAINT "Wallet_held_nonnegative" CHECK ("held" >= 0);
ALTER TABLE "Wallet" ADD CONSTRAINT "Wallet_available_nonnegative" CHECK ("balance" - "held" >= 0);
ALTER TABLE "LedgerTransaction" ADD CONSTRAINT "LedgerTransaction_amount_positive" CHECK ("amount" > 0);
ALTER TABLE "LedgerTransaction" ADD CONSTRAINT "LedgerTransaction_fees_nonnegative" CHECK ("fees" >= 0);
ALTER TABLE "LedgerTransaction" ADD CONSTRAINT "LedgerTransaction_type_known" CHECK ("type" IN ('debit', 'credit'));
ALTER TABLE "LedgerTransaction" ADD CONSTRAINT "LedgerTransaction_status_known" CHECK ("status" IN ('processing', 'completed', 'failed', 'reversed'));
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_kind_moves" CHECK (
  ("kind" = 'credit' AND "balanceDelta" > 0 AND "heldDelta" = 0) OR
  ("kind" = 'hold' AND "balanceDelta" = 0 AND "heldDelta" > 0) OR
  ("kind" = 'settle' AND "balanceDelta" < 0 AND "heldDelta" = "balanceDelta") OR
  ("kind" = 'release' AND "balanceDelta" = 0 AND "heldDelta" < 0)
);

-- The sandbox rail plays an outside bank: it must survive a lost Redis or a
-- killed worker, not a crash of Postgres itself. Unlogged, its writes cost no
-- WAL flush on the payout hot path (a Postgres crash empties it).
ALTER TABLE "SandboxTransfer" SET UNLOGGED;

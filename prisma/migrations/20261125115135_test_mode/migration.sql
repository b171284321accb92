-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "liveWorkspaceId" INTEGER,
ADD COLUMN     "mode" TEXT NOT NULL DEFAULT 'live';

-- CreateTable
CREATE TABLE "OperatorAction" (
    "id" SERIAL NOT NULL,
    "action" TEXT NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OperatorAction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OperatorAction_workspaceId_idx" ON "OperatorAction"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "Workspace_liveWorkspaceId_key" ON "Workspace"("liveWorkspaceId");

-- AddForeignKey
ALTER TABLE "Workspace" ADD CONSTRAINT "Workspace_liveWorkspaceId_fkey" FOREIGN KEY ("liveWorkspaceId") REFERENCES "Workspace"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OperatorAction" ADD CONSTRAINT "OperatorAction_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A workspace is live, or the test twin of exactly one live workspace
ALTER TABLE "Workspace" ADD CONSTRAINT "Workspace_mode_check" CHECK (("mode" = 'live' AND "liveWorkspaceId" IS NULL) OR ("mode" = 'test' AND "liveWorkspaceId" IS NOT NULL));

-- Every existing workspace is live and gets its test twin, with the same wallets, empty
INSERT INTO "Workspace" ("name", "createdAt", "mode", "liveWorkspaceId")
SELECT "name", CURRENT_TIMESTAMP, 'test', "id" FROM "Workspace" WHERE "mode" = 'live' ORDER BY "id";

INSERT INTO "Wallet" ("workspaceId", "currency", "updatedAt")
SELECT t."id", w."currency", CURRENT_TIMESTAMP FROM "Wallet" w JOIN "Workspace" t ON t."liveWorkspaceId" = w."workspaceId";

-- Existing test keys move to the test side: from now on they see only test data
UPDATE "ApiKey" k SET "workspaceId" = t."id" FROM "Workspace" t WHERE t."liveWorkspaceId" = k."workspaceId" AND k."mode" = 'test';

-- CreateIndex
CREATE INDEX "Collection_workspaceId_createdAt_id_idx" ON "Collection"("workspaceId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "InboundPayment_workspaceId_createdAt_id_idx" ON "InboundPayment"("workspaceId", "createdAt" DESC, "id" DESC);

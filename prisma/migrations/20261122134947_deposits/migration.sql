-- CreateTable
CREATE TABLE "Collection" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "railReference" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" DECIMAL(30,6) NOT NULL,
    "customerName" TEXT,
    "customerEmail" TEXT,
    "provider" TEXT NOT NULL,
    "providerAccountReference" TEXT,
    "accountNumber" TEXT NOT NULL,
    "accountName" TEXT NOT NULL,
    "bankName" TEXT NOT NULL,
    "bankCode" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "amountPaid" DECIMAL(30,6),
    "paidAt" TIMESTAMP(3),
    "providerReference" TEXT,
    "ledgerTransactionId" INTEGER,
    "expiredAt" TIMESTAMP(3),
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Collection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReservedAccount" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "railReference" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "depositCurrency" TEXT,
    "customerName" TEXT NOT NULL,
    "customerEmail" TEXT,
    "provider" TEXT NOT NULL,
    "providerAccountReference" TEXT,
    "accountNumber" TEXT NOT NULL,
    "accountName" TEXT NOT NULL,
    "bankName" TEXT NOT NULL,
    "bankCode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReservedAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboundPayment" (
    "id" SERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "providerReference" TEXT NOT NULL,
    "accountNumber" TEXT,
    "amount" DECIMAL(30,6) NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "workspaceId" INTEGER,
    "collectionId" INTEGER,
    "reservedAccountId" INTEGER,
    "ledgerTransactionId" INTEGER,
    "senderName" TEXT,
    "senderAccountNumber" TEXT,
    "senderBank" TEXT,
    "narration" TEXT,
    "raw" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InboundPayment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Collection_railReference_key" ON "Collection"("railReference");

-- CreateIndex
CREATE INDEX "Collection_provider_accountNumber_idx" ON "Collection"("provider", "accountNumber");

-- CreateIndex
CREATE INDEX "Collection_provider_providerAccountReference_idx" ON "Collection"("provider", "providerAccountReference");

-- CreateIndex
CREATE UNIQUE INDEX "Collection_workspaceId_reference_key" ON "Collection"("workspaceId", "reference");

-- CreateIndex
CREATE UNIQUE INDEX "ReservedAccount_railReference_key" ON "ReservedAccount"("railReference");

-- CreateIndex
CREATE INDEX "ReservedAccount_workspaceId_id_idx" ON "ReservedAccount"("workspaceId", "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ReservedAccount_workspaceId_reference_key" ON "ReservedAccount"("workspaceId", "reference");

-- CreateIndex
CREATE UNIQUE INDEX "ReservedAccount_workspaceId_depositCurrency_key" ON "ReservedAccount"("workspaceId", "depositCurrency");

-- CreateIndex
CREATE UNIQUE INDEX "ReservedAccount_workspaceId_customerEmail_currency_key" ON "ReservedAccount"("workspaceId", "customerEmail", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "ReservedAccount_provider_accountNumber_key" ON "ReservedAccount"("provider", "accountNumber");

-- CreateIndex
CREATE INDEX "InboundPayment_status_createdAt_idx" ON "InboundPayment"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "InboundPayment_provider_providerReference_key" ON "InboundPayment"("provider", "providerReference");

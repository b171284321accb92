-- CreateTable
CREATE TABLE "PayoutAttempt" (
    "transactionId" INTEGER NOT NULL,
    "rail" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PayoutAttempt_pkey" PRIMARY KEY ("transactionId","rail")
);

-- CreateTable
CREATE TABLE "PayoutRoutingRule" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "currency" TEXT,
    "bankCodes" TEXT[],
    "minAmount" DECIMAL(30,6),
    "maxAmount" DECIMAL(30,6),
    "workspaceId" INTEGER,
    "rails" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PayoutRoutingRule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRoutingRule_name_key" ON "PayoutRoutingRule"("name");

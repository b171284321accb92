-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "sendStartedAt" TIMESTAMP(3);

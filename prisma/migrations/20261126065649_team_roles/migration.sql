-- AlterTable
ALTER TABLE "DashboardUser" ADD COLUMN     "passwordChangeRequired" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "role" TEXT NOT NULL DEFAULT 'owner';

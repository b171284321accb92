import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI (generate, and `migrate deploy` where the native engine
// can be had). Cowrie's own migration tool lives in packages/db/migrate.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie' },
});

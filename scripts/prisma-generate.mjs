// Runs `prisma generate` offline. The Prisma CLI looks for a native schema engine
// even though generating the client needs none; pointing it at any executable
// stops the download attempt (see docs/design.md, "Migrations without the native
// schema engine").
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const prismaCli = require.resolve('prisma/build/index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', 'prisma/schema.prisma'], {
  stdio: process.argv.includes('--quiet') ? ['ignore', 'ignore', 'inherit'] : 'inherit',
  env,
});
process.exit(result.status ?? 1);

// Used by `npm start` and `npm test` on a fresh clone: installs dependencies
// when they are missing and generates the Prisma client when it is missing;
// `npm start` then builds what changed.
// Only Node built-ins here: this runs before anything is installed.
import { existsSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`cowrie: "${cmd} ${args.join(' ')}" failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
}

/**
 * `npm run build` (turbo): compiles the services and the CLI into their dist/
 * when a source changed since the last build; a cache hit takes about a second.
 */
export function ensureBuild() {
  run(process.execPath, [path.join(root, 'node_modules/turbo/bin/turbo'), 'run', 'build', '--output-logs=errors-only', '--log-prefix=none']);
}

export function ensureInstall() {
  const marker = path.join(root, 'node_modules/.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
  if (stale) {
    console.error('cowrie: installing dependencies (npm install)…');
    run('npm', ['install', '--no-audit', '--no-fund']);
  }
  if (!existsSync(path.join(root, 'packages/db/src/generated/client.ts'))) {
    run(process.execPath, ['scripts/prisma-generate.mjs']);
  }
}

// Lays out what a production deployment runs, in <dir>: the compiled services
// and CLI (run `npm run build` first), the migrations and their offline tool,
// and the npm packages they load (production dependencies only). The Dockerfile
// copies this tree into its final image; `npm run bench -- footprint` measures it.
//
//   node scripts/build/production-tree.mjs <dir> [--offline]
//
// --offline prefers npm's cache over the registry (the bench, on a machine that has
// installed the project before).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [dirArg, ...flags] = process.argv.slice(2);
if (!dirArg) {
  console.error('usage: production-tree.mjs <dir> [--offline]');
  process.exit(2);
}
const out = path.resolve(dirArg);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const copy = (relative) => cpSync(path.join(root, relative), path.join(out, relative), { recursive: true });
const workspaces = ['apps', 'packages', 'services'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`));

// 1. What runs: each runnable's dist/ (its @cowrie/* code compiled in), the CLI's bin, the migrations,
// the container's scripts
// (first: npm links the CLI's bin only when the file exists).
for (const workspace of workspaces) {
  if (existsSync(path.join(root, workspace, 'dist/main.js'))) copy(`${workspace}/dist`);
}
for (const required of ['services/gateway', 'services/payout-worker', 'services/verification-dispatcher', 'services/webhook-sender', 'packages/cli']) {
  if (!existsSync(path.join(out, required, 'dist/main.js'))) {
    console.error(`production-tree: ${required}/dist/main.js is missing; run npm run build first`);
    process.exit(1);
  }
}
copy('packages/cli/bin');
copy('packages/db/migrate');
copy('prisma');
copy('scripts/container'); // the healthcheck, the `cowrie` command, the sandbox's secrets
for (const workspace of workspaces) rmSync(path.join(out, workspace, 'dist/meta.json'), { force: true });

// 2. The manifests: npm installs the production dependencies of every workspace from the lock.
// Optional ones too are left out: in the lock, what only Prisma's CLI (a build tool here) needs is
// "dev or optional", and no optional package is needed (each has a JavaScript fallback).
copy('package.json');
copy('package-lock.json');
for (const workspace of workspaces) copy(`${workspace}/package.json`);
const install = spawnSync(
  'npm',
  [
    'install',
    '--omit=dev',
    '--omit=optional',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...(flags.includes('--offline') ? ['--prefer-offline'] : []),
  ],
  { cwd: out, stdio: 'inherit' },
);
if (install.status !== 0) process.exit(install.status ?? 1);

// 3. Left out: the bundles hold every @cowrie/* package but the CLI (linked for `npx cowrie`),
// and Prisma's client ships query compilers for every database; Cowrie uses PostgreSQL's fast one.
for (const link of readdirSync(path.join(out, 'node_modules/@cowrie'))) {
  if (link !== 'cli') rmSync(path.join(out, 'node_modules/@cowrie', link), { force: true });
}
const prismaRuntime = path.join(out, 'node_modules/@prisma/client/runtime');
for (const file of readdirSync(prismaRuntime)) {
  if (file.startsWith('query_compiler_') && !file.startsWith('query_compiler_fast_bg.postgresql.')) rmSync(path.join(prismaRuntime, file));
}

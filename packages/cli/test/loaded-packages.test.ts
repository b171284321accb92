// Risk: a command paying at start for every other command's packages, or
// `workspace create` starting Prisma's query compiler (together most of the
// command's time: under 0.5 s), and help that loads anything at all.
// It runs the compiled CLI (dist/, made by npm run build), as operators do.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';

const MAIN = path.resolve(__dirname, '../dist/main.js');
const PRELOAD = path.resolve(__dirname, 'fixtures/report-loaded.cjs');

let env: TestEnv;
let dir: string;
beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run build first`);
  env = await createTestEnv();
  dir = mkdtempSync(path.join(os.tmpdir(), 'cowrie-cli-loaded-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await env.cleanup();
});

let runs = 0;
/** Runs the compiled CLI; returns its exit code and what it loaded. */
function loadedBy(...argv: string[]) {
  const file = path.join(dir, `${++runs}.json`);
  const out = spawnSync(process.execPath, ['-r', PRELOAD, MAIN, ...argv], {
    env: {
      ...process.env,
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL,
      REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX,
      COWRIE_TEST_LOADED_FILE: file,
    },
    encoding: 'utf8',
  });
  const loaded = JSON.parse(readFileSync(file, 'utf8')) as { packages: string[]; queryCompiler: boolean };
  return { code: out.status, stderr: out.stderr, ...loaded };
}

test('--help, a command --help and --version load no npm package', () => {
  for (const argv of [['--help'], ['wallet', 'credit', '--help'], ['--version']]) {
    expect(loadedBy(...argv)).toMatchObject({ code: 0, packages: [], queryCompiler: false });
  }
});

test('workspace create loads pg and its own packages, never Prisma query compiler, Redis or the verification packages', () => {
  const run = loadedBy('workspace', 'create', '--name', 'Light');
  expect(run).toMatchObject({ code: 0, queryCompiler: false });
  expect(run.packages).toContain('pg');
  for (const other of ['@prisma/adapter-pg', 'ioredis', 'libphonenumber-js', 'bullmq', 'pino', 'jose']) expect(run.packages).not.toContain(other);
});

test('a command on Redis does not load Prisma; one on Prisma does not load Redis', () => {
  const messages = loadedBy('sandbox', 'messages', '--destination', 'someone@example.com');
  expect(messages.code).toBe(0);
  expect(messages.packages).toContain('ioredis');
  expect(messages.packages).not.toContain('@prisma/adapter-pg');
  const audit = loadedBy('ledger', 'audit');
  expect(audit.code).toBe(0);
  expect(audit.packages).toContain('@prisma/adapter-pg');
  expect(audit.packages).not.toContain('ioredis');
});

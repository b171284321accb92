// Risk: the runbook's backup and restore drill (docs/runbook.md) does not
// work: a pg_dump that cannot be restored, a restore that migrations or the
// ledger auditor refuse, or a restored database whose money differs from the
// original. Runs the runbook's commands (pg_dump, createdb, pg_restore, the
// migration step, `cowrie ledger audit`) against a real database with money
// in it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '@cowrie/db';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';

const ROOT = path.join(__dirname, '../../..');
let env: TestEnv;
let restoredName: string;
let restoredUrl: string;
let freshName: string;

const run = (command: string, args: string[], extraEnv: Record<string, string> = {}) =>
  spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...extraEnv } });

beforeAll(async () => {
  env = await createTestEnv();
  // Named like a test database, so a run that dies leaves it to the next run's sweep.
  restoredName = `cowrie_t_${process.pid}_restore_${env.id}`;
  const url = new URL(env.config.DATABASE_URL);
  url.pathname = `/${restoredName}`;
  restoredUrl = url.toString();
  freshName = `cowrie_t_${process.pid}_fresh_${env.id}`;
});

afterAll(async () => {
  // Any connection but one to the database itself may drop it.
  await env.db.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${restoredName}"`);
  await env.db.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${freshName}" WITH (FORCE)`);
  await env.cleanup();
});

test('a dump restores into a new database that migrates, audits clean and holds the same money', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Restore drill' });
  await fundWallet(env.db, workspace.id, '2500.125000');
  await fundWallet(env.db, workspace.id, '100', 'NGN');
  const wallets = async (db: TestEnv['db']) =>
    (await db.wallet.findMany({ orderBy: { id: 'asc' } })).map((w) => ({ id: w.id, currency: w.currency, balance: String(w.balance) }));
  const before = await wallets(env.db);
  expect(before.some((w) => w.balance === '2600.125')).toBe(true);

  const dump = path.join(mkdtempSync(path.join(os.tmpdir(), 'restore-drill-')), 'cowrie.dump');
  const dumped = run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, env.config.DATABASE_URL]);
  expect(dumped.stderr).toBe('');
  expect(dumped.status).toBe(0);

  const target = new URL(restoredUrl);
  const created = run('createdb', ['-h', target.hostname, '-p', target.port || '5432', '-U', target.username || 'postgres', restoredName]);
  expect(created.status).toBe(0);
  const restored = run('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, dump]);
  expect(restored.stderr).toBe('');
  expect(restored.status).toBe(0);

  const migrated = run(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
    DATABASE_URL: restoredUrl,
  });
  expect(migrated.status).toBe(0);
  expect(migrated.stdout.trim()).toBe('database is up to date');

  const audit = run(process.execPath, ['packages/cli/bin/cowrie.js', 'ledger', 'audit'], { DATABASE_URL: restoredUrl, NODE_ENV: 'test' });
  expect({ status: audit.status, stderr: audit.stderr }).toEqual({ status: 0, stderr: '' });
  const report = JSON.parse(audit.stdout) as { ok: boolean; checked: { wallets: number } };
  expect(report.ok).toBe(true);
  expect(report.checked.wallets).toBe(before.length);

  const restoredDb = createDb({ databaseUrl: restoredUrl, poolSize: 1 });
  try {
    expect(await wallets(restoredDb)).toEqual(before);
  } finally {
    await restoredDb.$disconnect();
  }
  // The drill's commands are the runbook's.
  const runbook = readFileSync(path.join(ROOT, 'docs/runbook.md'), 'utf8');
  for (const command of [
    'pg_dump -U postgres --format=custom --no-owner',
    'pg_restore --no-owner --dbname=',
    'npm run db:migrate',
    'npx cowrie ledger audit',
  ]) {
    expect(runbook).toContain(command);
  }
});

test('migration runs started together on a database that does not exist yet all succeed: one creates it and migrates, the others find it', async () => {
  const url = new URL(env.config.DATABASE_URL);
  url.pathname = `/${freshName}`;
  const migrate = () =>
    new Promise<{ status: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url.toString() },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (status) => resolve({ status, out }));
    });
  const runs = await Promise.all([migrate(), migrate(), migrate(), migrate()]);
  expect(runs.map((r) => [r.status, r.out.includes('migration failed')])).toEqual(runs.map(() => [0, false]));
  const again = await migrate();
  expect(again).toEqual({ status: 0, out: 'database is up to date\n' });
});

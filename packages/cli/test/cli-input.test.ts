// Risk: an operator's mistake answered with something other than the CLI's
// one line and its documented exit code (docs/operations.md: 2 for a usage
// mistake, 1 for a failure): an id past Postgres's integer printing Prisma's
// multi-line error with source code, a negative value after a space printing
// Node's three-line parseArgs text, an unknown scope exiting 1, or an audit of
// a workspace that does not exist answering ok (exit 0) about nothing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';

const BIN = path.resolve(__dirname, '../bin/cowrie.js');

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, NODE_ENV: 'test' };
});
afterAll(() => env.cleanup());

/** The installed bin (the compiled CLI: `npm run build` first), as an operator runs it. */
function cowrie(argv: string[], input = '') {
  const out = spawnSync(process.execPath, [BIN, ...argv], { env: { ...process.env, ...cliEnv }, input, encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const TOO_BIG = '2147483648';

test.each([
  [['key', 'create', '--workspace', TOO_BIG, '--scopes', 'read'], 'workspace'],
  [['wallet', 'credit', '--workspace', TOO_BIG, '--currency', 'NGN', '--amount', '1'], 'workspace'],
  [['user', 'create', '--workspace', TOO_BIG, '--email', 'ops@example.com', '--password-stdin'], 'workspace'],
  [['key', 'revoke', '--id', TOO_BIG], 'id'],
  [['user', 'disable', '--id', TOO_BIG], 'id'],
  [['ledger', 'audit', '--workspace', TOO_BIG], 'workspace'],
  [['ledger', 'audit', '--workspace', TOO_BIG, '--mode', 'test'], 'workspace'],
])('%j: an id past 2147483647 is a usage mistake, one line, exit 2, as "abc" is', (argv, option) => {
  const out = cowrie(argv, 'a long enough passphrase\n');
  expect(out).toEqual({
    code: 2,
    stdout: '',
    stderr: `cowrie: --${option} must be a positive integer of at most 2147483647, got "${TOO_BIG}"\n`,
  });
  const abc = cowrie(argv.map((a) => (a === TOO_BIG ? 'abc' : a)));
  expect(abc).toEqual({ code: 2, stdout: '', stderr: `cowrie: --${option} must be a positive integer of at most 2147483647, got "abc"\n` });
});

test('the largest id is an id: a workspace that does not exist, exit 1', () => {
  expect(cowrie(['key', 'create', '--workspace', '2147483647', '--scopes', 'read'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'cowrie: workspace 2147483647 does not exist\n',
  });
});

test('ledger audit of a workspace that does not exist says so and exits 1, as every other command does; one that does is audited', async () => {
  for (const argv of [
    ['ledger', 'audit', '--workspace', '999999'],
    ['ledger', 'audit', '--workspace', '999999', '--mode', 'live'],
    ['key', 'create', '--workspace', '999999', '--scopes', 'read'],
    ['wallet', 'credit', '--workspace', '999999', '--currency', 'NGN', '--amount', '1'],
  ]) {
    expect([argv, cowrie(argv)]).toEqual([argv, { code: 1, stdout: '', stderr: 'cowrie: workspace 999999 does not exist\n' }]);
  }
  const { workspace } = await createWorkspaceWithKey(env.db);
  const audited = cowrie(['ledger', 'audit', '--workspace', String(workspace.id)]);
  expect(audited.code).toBe(0);
  expect(JSON.parse(audited.stdout)).toMatchObject({ ok: true });
});

test('a value starting with "-" after a space reads as with "=": the CLI\'s own line; an option left without its value is one line too', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const credit = ['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN'];
  const withEquals = cowrie([...credit, '--amount=-5']);
  expect(withEquals).toEqual({ code: 2, stdout: '', stderr: 'cowrie: --amount must not be negative\n' });
  expect(cowrie([...credit, '--amount', '-5'])).toEqual(withEquals);
  expect(cowrie(['key', 'create', '--workspace', '-1', '--scopes', 'read'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'cowrie: --workspace must be a positive integer of at most 2147483647, got "-1"\n',
  });
  // Another option where the value should be: one line naming the option, exit 2.
  expect(cowrie(['key', 'create', '--workspace', '--scopes', 'read'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'cowrie: --workspace needs a value (one that starts with "-" is written --workspace=-…)\n',
  });
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id } })).toBe(0);
});

test('an unknown or missing scope is a usage mistake: exit 2, one line, no key made', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const before = await env.db.apiKey.count();
  for (const scopes of ['bogus', 'read,fly', ',']) {
    const out = cowrie(['key', 'create', '--workspace', String(workspace.id), '--scopes', scopes]);
    expect([scopes, out.code, out.stdout, out.stderr.split('\n').length]).toEqual([scopes, 2, '', 2]);
    expect(out.stderr).toMatch(/^cowrie: (unknown scope|at least one scope)/);
  }
  expect(await env.db.apiKey.count()).toBe(before);
});

test('an unknown option is a usage mistake in one line that says where the options are listed, exit 2', () => {
  expect(cowrie(['workspace', 'create', '--name', 'Acme', '--extra', '1'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'cowrie: unknown option --extra; cowrie workspace create --help lists its options\n',
  });
});

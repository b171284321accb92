// Risk: the operator CLI printing something other than one JSON object, exiting
// 0 on a mistake, or showing a key more than once.
import { Readable } from 'node:stream';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { authenticateApiKey } from '@cowrie/accounts';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, NODE_ENV: 'test' };
});
afterAll(() => env.cleanup());

const cli = (...argv: string[]) => runCli(argv, cliEnv);

test('workspace create prints {id, name} and makes a wallet per catalog currency', async () => {
  const out = await cli('workspace', 'create', '--name', 'Acme Ltd');
  expect(out.code).toBe(0);
  const ws = JSON.parse(out.stdout);
  expect(ws).toMatchObject({ id: expect.any(Number), name: 'Acme Ltd' });
  const wallets = await env.db.wallet.findMany({ where: { workspaceId: ws.id } });
  expect(wallets.map((w) => w.currency).sort()).toEqual(['EUR', 'GBP', 'JPY', 'NGN', 'USD', 'USDT']);
});

test('a workspace name over 200 characters is a usage mistake (exit 2), and nothing is created', async () => {
  const before = await env.db.workspace.count();
  const out = await cli('workspace', 'create', '--name', 'x'.repeat(201));
  expect(out).toMatchObject({ code: 2, stdout: '' });
  expect(out.stderr).toMatch(/at most 200 characters/);
  expect(await env.db.workspace.count()).toBe(before);
});

test("user create on a workspace's test side says to name the live workspace, not a --mode it does not have", async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Sides')).stdout);
  const argv = ['user', 'create', '--workspace', String(ws.test_workspace_id), '--email', 'sides@example.com', '--password-stdin'];
  const out = await runCli(argv, cliEnv, { stdin: Readable.from([Buffer.from('a long passphrase for both sides\n')]) });
  expect(out.code).not.toBe(0);
  expect(out.stderr).toContain(`workspace ${ws.test_workspace_id} is the test side of workspace ${ws.id}`);
  expect(out.stderr).toMatch(new RegExp(`--workspace ${ws.id}\\b`));
  expect(out.stderr).not.toMatch(/with mode test/);
});

test('key create prints the key once with its scopes; key revoke revokes it', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Keys')).stdout);
  const out = await cli('key', 'create', '--workspace', String(ws.id), '--scopes', 'read,payouts:write');
  expect(out.code).toBe(0);
  const created = JSON.parse(out.stdout);
  expect(created).toMatchObject({ id: expect.any(Number), key: expect.stringMatching(/^ck_live_/), scopes: ['read', 'payouts:write'] });
  expect(await authenticateApiKey(env.db, created.key)).toMatchObject({ workspaceId: ws.id });
  const revoked = await cli('key', 'revoke', '--id', String(created.id));
  expect(JSON.parse(revoked.stdout)).toEqual({ id: created.id, revoked: true });
  expect(await authenticateApiKey(env.db, created.key)).toBeNull();
});

test('key revoke stops an expiring key (a rolled one in its grace) now, and never moves an earlier stop later', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Keys stop once')).stdout);
  const expiring = JSON.parse((await cli('key', 'create', '--workspace', String(ws.id), '--scopes', 'read')).stdout);
  await env.db.apiKey.update({ where: { id: expiring.id }, data: { revokedAt: new Date(Date.now() + 86_400_000) } });
  expect(await authenticateApiKey(env.db, expiring.key)).not.toBeNull();
  expect((await cli('key', 'revoke', '--id', String(expiring.id))).code).toBe(0);
  expect(await authenticateApiKey(env.db, expiring.key)).toBeNull();
  const stopped = (await env.db.apiKey.findUniqueOrThrow({ where: { id: expiring.id } })).revokedAt!;
  expect(stopped.getTime()).toBeLessThanOrEqual(Date.now());
  // Revoking again answers the same and keeps the time it stopped.
  const again = await cli('key', 'revoke', '--id', String(expiring.id));
  expect(JSON.parse(again.stdout)).toEqual({ id: expiring.id, revoked: true });
  expect((await env.db.apiKey.findUniqueOrThrow({ where: { id: expiring.id } })).revokedAt).toEqual(stopped);
});

test('user create prints {id, email} and never the password', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Users')).stdout);
  const out = await cli('user', 'create', '--workspace', String(ws.id), '--email', 'Ops@Example.com', '--password', 's3cret-passphrase');
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toMatchObject({ id: expect.any(Number), email: 'ops@example.com' });
  expect(out.stdout).not.toContain('s3cret-passphrase');
  const dup = await cli('user', 'create', '--workspace', String(ws.id), '--email', 'ops@example.com', '--password', 's3cret-passphrase');
  expect(dup.code).not.toBe(0);
  expect(dup.stderr).toMatch(/already exists/);
});

test('user disable marks the user disabled and ends its sessions; an unknown id fails', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Disabled')).stdout);
  const user = JSON.parse(
    (await cli('user', 'create', '--workspace', String(ws.id), '--email', 'leaver@example.com', '--password', 'a long passphrase')).stdout,
  );
  const out = await cli('user', 'disable', '--id', String(user.id));
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({ id: user.id, disabled: true });
  const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
  expect(row.disabledAt).not.toBeNull();
  expect(row.sessionVersion).toBe(1);
  const unknown = await cli('user', 'disable', '--id', '999999');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/does not exist/);
});

test.each([
  [['nonsense'], /unknown command/],
  [['workspace', 'create'], /missing --name/],
  [['key', 'create', '--workspace', '1'], /missing --scopes/],
  [['key', 'create', '--workspace', 'abc', '--scopes', 'read'], /--workspace must be a positive integer/],
  [['key', 'create', '--workspace', '1', '--scopes', 'read,fly'], /unknown scope fly/],
  [['key', 'create', '--workspace', '999999', '--scopes', 'read'], /workspace 999999 does not exist/],
  [['key', 'revoke', '--id', '999999'], /does not exist/],
  [['workspace', 'create', '--name', 'x', '--colour', 'red'], /colour/],
  [['user', 'create', '--workspace', '1', '--email', 'not-an-email', '--password', 'long enough passphrase'], /invalid email/],
  [['user', 'create', '--workspace', '1', '--email', 'a@b.co', '--password', 'elevenchars'], /at least 12 characters/],
  [['user', 'create', '--workspace', '1', '--email', 'a@b.co', '--password', 'Password123!'], /too common/],
])('%j fails with a clear error and a non-zero exit', async (argv, message) => {
  const out = await cli(...argv);
  expect(out.code).not.toBe(0);
  expect(out.stdout).toBe('');
  expect(out.stderr).toMatch(message);
});

test('--pretty prints the same JSON, indented for people', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Pretty')).stdout);
  const argv = ['ledger', 'audit', '--workspace', String(ws.id)];
  const [plain, pretty] = [await cli(...argv), await cli(...argv, '--pretty')];
  expect(pretty.code).toBe(0);
  expect(plain.stdout.split('\n')).toHaveLength(1);
  expect(pretty.stdout).toMatch(/^\{\n  "/);
  expect(JSON.parse(pretty.stdout)).toEqual(JSON.parse(plain.stdout));
});

test('the installed bin prints JSON and exits 0 (npx cowrie)', async () => {
  const { spawnSync } = await import('node:child_process');
  const path = await import('node:path');
  const bin = path.resolve(__dirname, '../bin/cowrie.js');
  const ok = spawnSync(process.execPath, [bin, 'workspace', 'create', '--name', 'From bin'], { env: { ...process.env, ...cliEnv }, encoding: 'utf8' });
  expect(ok.status).toBe(0);
  expect(JSON.parse(ok.stdout.trim())).toMatchObject({ name: 'From bin' });
  const bad = spawnSync(process.execPath, [bin, 'key', 'revoke'], { env: { ...process.env, ...cliEnv }, encoding: 'utf8' });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/missing --id/);
});

test('key revoke with Redis down: the key is revoked and the command says so (exit 0), warning that gateways learn of it within the cache age', async () => {
  const ws = JSON.parse((await cli('workspace', 'create', '--name', 'Revoke while Redis is down')).stdout);
  const created = JSON.parse((await cli('key', 'create', '--workspace', String(ws.id), '--scopes', 'read')).stdout);
  const out = await runCli(['key', 'revoke', '--id', String(created.id)], { ...cliEnv, REDIS_URL: 'redis://127.0.0.1:1' });
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({ id: created.id, revoked: true });
  expect(out.stderr).toContain(`cowrie: warning: key ${created.id} is revoked, but gateways were not told at once`);
  expect(out.stderr).toContain('within 60 s');
  expect(out.stderr).toContain('cowrie: warning: Redis did not answer at REDIS_URL=redis://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)');
  expect(await authenticateApiKey(env.db, created.key)).toBeNull();
});

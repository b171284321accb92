// Risk: an operator's action (a workspace, a key, a user, money credited)
// that leaves no row in its business's audit trail, or a row that does not
// name the operator, the side it acted on, or keeps the key or the password.
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { listAuditEvents } from '@cowrie/accounts';
import { rememberSecret, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, NODE_ENV: 'test' };
});
afterAll(() => env.cleanup());

const cli = async (...argv: string[]) => cliWith(undefined, ...argv);
const cliWith = async (stdin: string | undefined, ...argv: string[]) => {
  const out = await runCli(argv, cliEnv, stdin === undefined ? undefined : { stdin: Readable.from([Buffer.from(stdin)]) });
  expect([argv.join(' '), out.code, out.stderr]).toEqual([argv.join(' '), 0, '']);
  return JSON.parse(out.stdout);
};

test('every CLI action is a row of its business, by the operator user@host, on the side it acted on', async () => {
  const workspace = await cli('workspace', 'create', '--name', 'Operated');
  const ws = String(workspace.id);
  const liveKey = await cli('key', 'create', '--workspace', ws, '--scopes', 'read');
  const testKey = await cli('key', 'create', '--workspace', ws, '--scopes', 'read,payouts:write', '--mode', 'test');
  rememberSecret(liveKey.key);
  rememberSecret(testKey.key);
  await cli('key', 'revoke', '--id', String(testKey.id));
  rememberSecret('an operator passphrase');
  const user = await cliWith('an operator passphrase', 'user', 'create', '--workspace', ws, '--email', 'Boss@Example.com', '--password-stdin');
  await cli('user', 'disable', '--id', String(user.id));
  const credit = await cli('wallet', 'credit', '--workspace', ws, '--currency', 'NGN', '--amount', '250', '--mode', 'test');

  const { items } = await listAuditEvents(env.db, { workspaceId: workspace.id, limit: 100 });
  const rows = items.reverse();
  const prefixOf = (key: string) => key.split('_').slice(0, 3).join('_');
  expect(rows.map((r) => [r.action, r.livemode, r.object, r.details])).toEqual([
    ['workspace.created', true, { type: 'workspace', id: ws }, { name: 'Operated' }],
    ['api_key.created', true, { type: 'api_key', id: String(liveKey.id) }, { prefix: prefixOf(liveKey.key), name: null, scopes: ['read'] }],
    ['api_key.created', false, { type: 'api_key', id: String(testKey.id) }, { prefix: prefixOf(testKey.key), name: null, scopes: ['read', 'payouts:write'] }],
    ['api_key.revoked', false, { type: 'api_key', id: String(testKey.id) }, { prefix: prefixOf(testKey.key) }],
    ['user.created', true, { type: 'user', id: String(user.id) }, { email: 'boss@example.com', role: 'owner' }],
    ['user.disabled', true, { type: 'user', id: String(user.id) }, { email: 'boss@example.com' }],
    ['wallet.credited', false, { type: 'wallet', id: expect.any(String) }, { currency: 'NGN', amount: '250.000000', reference: credit.reference }],
  ]);
  for (const row of rows) {
    expect(row).toMatchObject({ workspace_id: workspace.id, client_address: null, request_id: null, user_agent: null });
    expect(row.actor).toEqual({
      type: 'operator',
      user_id: null,
      email: null,
      api_key_prefix: null,
      operator: expect.stringMatching(new RegExp(`@${hostname()}$`)),
    });
  }
});

test('a command that fails records nothing', async () => {
  const before = await env.db.auditEvent.count();
  const out = await runCli(['user', 'disable', '--id', '999999'], cliEnv);
  expect(out.code).not.toBe(0);
  const revoke = await runCli(['key', 'revoke', '--id', '999999'], cliEnv);
  expect(revoke.code).not.toBe(0);
  expect(await env.db.auditEvent.count()).toBe(before);
});

// Risk: sandbox funding that prints the wrong balance, credits a wallet twice,
// or accepts amounts and currencies the ledger would refuse.
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL };
});
afterAll(() => env.cleanup());

test('cowrie wallet credit funds a wallet with an adjustment credit and prints its balances', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const out = await runCli(['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'ngn', '--amount', '1500.25'], cliEnv);
  expect(out.code).toBe(0);
  const printed = JSON.parse(out.stdout);
  expect(printed).toMatchObject({
    currency: 'NGN',
    available: '1500.250000',
    pending: '0.000000',
    ledger: '1500.250000',
    status: 'live',
    workspace_id: workspace.id,
  });
  const again = JSON.parse((await runCli(['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN', '--amount', '10'], cliEnv)).stdout);
  expect(again.available).toBe('1510.250000');
  const row = await env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: printed.transaction_id } });
  expect(row).toMatchObject({ type: 'credit', direction: 'in', channel: 'adjustment', status: 'completed' });
  expect((await auditWallet(env.db, (await findWallet(env.db, workspace.id, 'NGN'))!.id)).consistent).toBe(true);
});

test.each([
  [['--currency', 'XYZ', '--amount', '5'], /currency/],
  [['--currency', 'NGN', '--amount', 'lots'], /amount/],
  [['--currency', 'NGN', '--amount', '0'], /amount/],
  [['--currency', 'NGN', '--amount', '1.1234567'], /amount/],
  [['--currency', 'NGN'], /missing --amount/],
])('bad arguments %p are refused with a clear error', async (args, message) => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const out = await runCli(['wallet', 'credit', '--workspace', String(workspace.id), ...args], cliEnv);
  expect(out.code).toBe(2);
  expect(out.stdout).toBe('');
  expect(out.stderr).toMatch(message);
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id } })).toBe(0);
});

test('an unknown workspace fails without writing anything', async () => {
  const out = await runCli(['wallet', 'credit', '--workspace', '999999', '--currency', 'NGN', '--amount', '5'], cliEnv);
  expect(out.code).toBe(1);
  expect(out.stderr).toMatch(/workspace 999999 does not exist/);
});

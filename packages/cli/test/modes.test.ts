// Risk: the operator commands acting on the wrong mode: a test key made on
// live data, an operator credit in production creating real money without a
// confirmation or a record, `sandbox transfer-in` crediting a live account in
// production.
import { findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let devEnv: Record<string, string>;
let prodEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  devEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX };
  prodEnv = {
    ...devEnv,
    NODE_ENV: 'production',
    JWT_SECRET: '9f2c1e7a4b8d03f6e5c2a19b7d4e8f0a3c6b1d9e2f7a4c8b',
    ENCRYPTION_KEY: '3a7f9c2e1b8d4f6a0c5e9b2d7f1a4c8e6b3d9f2a5c7e1b4d8f0a2c6e9b3d7f15',
    ALLOW_SANDBOX_IN_PRODUCTION: 'true',
  };
});
afterAll(() => env.cleanup());

const cli = (args: string[], vars = devEnv) => runCli(args, vars);

test('workspace create makes the live workspace and its test side; key create --mode test keeps the key there', async () => {
  const created = JSON.parse((await cli(['workspace', 'create', '--name', 'Modes Ltd'])).stdout);
  expect(created.test_workspace_id).toEqual(expect.any(Number));
  const side = await env.db.workspace.findUniqueOrThrow({ where: { id: created.test_workspace_id } });
  expect(side).toMatchObject({ mode: 'test', liveWorkspaceId: created.id });
  expect(await env.db.wallet.count({ where: { workspaceId: created.test_workspace_id } })).toBe(
    await env.db.wallet.count({ where: { workspaceId: created.id } }),
  );
  const key = JSON.parse((await cli(['key', 'create', '--workspace', String(created.id), '--scopes', 'read', '--mode', 'test'])).stdout);
  expect(key.key).toMatch(/^ck_test_/);
  expect((await env.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).workspaceId).toBe(created.test_workspace_id);
  // The test side is reached through the business's live id, never named itself.
  const refused = await cli(['key', 'create', '--workspace', String(created.test_workspace_id), '--scopes', 'read']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/is the test side of workspace/);
  for (const command of [
    ['key', 'create', '--scopes', 'read'],
    ['wallet', 'credit', '--currency', 'NGN', '--amount', '1'],
  ]) {
    const bad = await cli([...command, '--workspace', String(created.id), '--mode', 'staging']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mode must be live or test/);
  }
});

test('wallet credit --mode test funds the test wallet; the live wallet is the default outside production', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const testCredit = JSON.parse(
    (await cli(['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN', '--amount', '70', '--mode', 'test'])).stdout,
  );
  expect(testCredit).toMatchObject({ workspace_id: workspace.test_workspace_id, mode: 'test', available: '70.000000' });
  const liveCredit = JSON.parse((await cli(['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN', '--amount', '5'])).stdout);
  expect(liveCredit).toMatchObject({ workspace_id: workspace.id, mode: 'live', available: '5.000000' });
  expect(await env.db.operatorAction.count({ where: { workspaceId: workspace.id } })).toBe(0);
});

test('in production a live credit needs --live-money and is recorded as an operator action; a test credit needs neither', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const args = ['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN', '--amount', '250'];
  const refused = await cli(args, prodEnv);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/--live-money/);
  expect((await findWallet(env.db, workspace.id, 'NGN'))!.balance.toFixed(6)).toBe('0.000000');

  const confirmed = await cli([...args, '--live-money'], prodEnv);
  expect(confirmed.code).toBe(0);
  const printed = JSON.parse(confirmed.stdout);
  expect(printed.available).toBe('250.000000');
  const actions = await env.db.operatorAction.findMany({ where: { workspaceId: workspace.id } });
  expect(actions).toHaveLength(1);
  expect(actions[0]).toMatchObject({ action: 'wallet.credit', details: { currency: 'NGN', amount: '250.000000', transaction_reference: printed.reference } });
  expect(actions[0]!.actor).toMatch(/@/);

  const testCredit = await cli(['wallet', 'credit', '--workspace', String(workspace.id), '--currency', 'NGN', '--amount', '9', '--mode', 'test'], prodEnv);
  expect(testCredit.code).toBe(0);
  expect(await env.db.operatorAction.count({ where: { workspaceId: { in: [workspace.id, workspace.test_workspace_id] } } })).toBe(1);
});

test('in production sandbox transfer-in credits test accounts only', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const open = (workspaceId: number, accountNumber: string, reference: string) =>
    env.db.reservedAccount.create({
      data: {
        workspaceId,
        holder: 'customer',
        reference,
        railReference: `rail-${reference}`,
        provider: 'sandbox',
        accountNumber,
        accountName: 'Ada',
        bankName: 'Cowrie Sandbox Bank',
        bankCode: '999',
        currency: 'NGN',
        customerName: 'Ada',
        customerEmail: `${reference}@example.com`,
      },
    });
  await open(workspace.id, '9000000001', 'live-acct');
  await open(workspace.test_workspace_id, '9000000002', 'test-acct');
  const intoLive = await cli(['sandbox', 'transfer-in', '--account-number', '9000000001', '--amount', '100'], prodEnv);
  expect(intoLive.code).toBe(2);
  expect(intoLive.stderr).toMatch(/test accounts only/);
  expect((await findWallet(env.db, workspace.id, 'NGN'))!.balance.toFixed(6)).toBe('0.000000');
  const intoTest = await cli(['sandbox', 'transfer-in', '--account-number', '9000000002', '--amount', '100'], prodEnv);
  expect(intoTest.code).toBe(0);
  expect(JSON.parse(intoTest.stdout)).toMatchObject({ matched: true, workspace_id: workspace.test_workspace_id });
  // Outside production the live sandbox account is credited as before.
  expect(JSON.parse((await cli(['sandbox', 'transfer-in', '--account-number', '9000000001', '--amount', '100'])).stdout)).toMatchObject({
    matched: true,
    workspace_id: workspace.id,
  });
});

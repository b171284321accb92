// Risk: `cowrie sandbox transfer-in` taking a different path from a provider
// notification (crediting without matching, twice, or without the event), or
// failing without a clear message.
import { Decimal } from '@cowrie/core';
import { createSandboxRail } from '@cowrie/collection-rails';
import { ensureBusinessReservedAccount, openCollection } from '@cowrie/deposits';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, LOG_LEVEL: 'silent' };
});
afterAll(() => env.cleanup());

const ctx = () => ({ db: env.db, rail: createSandboxRail() });
const transferIn = (...args: string[]) => runCli(['sandbox', 'transfer-in', ...args], cliEnv);

test('a transfer into a one-off account: matched, the collection successful, the wallet credited, the event in the outbox', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'CLI Co' });
  const { collection } = await openCollection(ctx(), {
    workspaceId: workspace.id,
    source: 'deposit',
    amount: new Decimal('1500'),
    currency: 'NGN',
    expiresInSeconds: 3600,
  });
  const res = await transferIn('--account-number', collection.accountNumber, '--amount', '1500', '--reference', 'cli-ref-1');
  expect(res.code).toBe(0);
  expect(res.stderr).toBe('');
  const out = JSON.parse(res.stdout);
  expect(out).toMatchObject({
    matched: true,
    duplicate: false,
    status: 'credited',
    channel: 'collection_va',
    collection_id: collection.id,
    workspace_id: workspace.id,
    amount: '1500.000000',
    currency: 'NGN',
    provider_reference: 'cli-ref-1',
    wallet: { currency: 'NGN', available: '1500.000000', ledger: '1500.000000' },
  });
  expect((await env.db.collection.findUniqueOrThrow({ where: { id: collection.id } })).status).toBe('successful');
  expect(await env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'collection.successful' } })).toBe(1);

  const again = JSON.parse((await transferIn('--account-number', collection.accountNumber, '--amount', '1500', '--reference', 'cli-ref-1')).stdout);
  expect(again).toMatchObject({ matched: true, duplicate: true, wallet: { available: '1500.000000' } });
});

test('a transfer into the business reserved account credits reserved_va; without --reference each call is a new transfer', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'CLI Reserved' });
  const { account } = await ensureBusinessReservedAccount(ctx(), { workspaceId: workspace.id, currency: 'NGN' });
  for (const amount of ['100', '20.5']) {
    const res = await transferIn('--account-number', account.accountNumber, '--amount', amount);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ matched: true, channel: 'reserved_va', reserved_account_id: account.id });
  }
  const wallet = await env.db.wallet.findUniqueOrThrow({ where: { workspaceId_currency: { workspaceId: workspace.id, currency: 'NGN' } } });
  expect(wallet.balance.toFixed(6)).toBe('120.500000');
});

test('an unknown account or a wrong amount prints matched false with the reason, and credits nothing', async () => {
  const unknown = await transferIn('--account-number', '1111111111', '--amount', '5');
  expect(unknown.code).toBe(0);
  expect(JSON.parse(unknown.stdout)).toMatchObject({ matched: false, status: 'unmatched', reason: 'unknown_account', wallet: null });
  const { workspace } = await createWorkspaceWithKey(env.db);
  const { collection } = await openCollection(ctx(), {
    workspaceId: workspace.id,
    source: 'deposit',
    amount: new Decimal('50'),
    currency: 'NGN',
    expiresInSeconds: 3600,
  });
  const short = JSON.parse((await transferIn('--account-number', collection.accountNumber, '--amount', '49.99')).stdout);
  expect(short).toMatchObject({ matched: false, reason: 'amount_mismatch', wallet: { ledger: '0.000000' } });
});

test.each([
  [['--amount', '5'], /missing --account-number/],
  [['--account-number', '123', '--amount', '5'], /--account-number must be 10 digits/],
  [['--account-number', '1234567890', '--amount', 'abc'], /--amount must be a number/],
  [['--account-number', '1234567890', '--amount', '0'], /--amount must be positive/],
])('operator mistakes exit 2 with a message: %j', async (args, message) => {
  const res = await transferIn(...args);
  expect(res.code).toBe(2);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(message);
});

// Risk: the operator's routing rules not taking effect (a payout routed by
// the configured order though a rule in the table matches it), a table rule
// not tried before the configured ones, a bad rule accepted, or a removed one
// still routing.
import { Decimal, loadConfig } from '@cowrie/core';
import { createRails } from '@cowrie/rails';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
const RULES = JSON.stringify([{ name: 'from-config', currency: 'NGN', rails: ['paystack', 'flutterwave'] }]);
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = {
    DATABASE_URL: env.config.DATABASE_URL,
    REDIS_URL: env.config.REDIS_URL,
    LOG_LEVEL: 'silent',
    PAYOUT_RAILS: 'paystack,flutterwave',
    PAYOUT_ROUTING_RULES: RULES,
  };
});
afterAll(() => env.cleanup());

const cli = async (...args: string[]) => {
  const res = await runCli(['rail', 'rule', ...args], cliEnv);
  return { ...res, json: res.stdout ? JSON.parse(res.stdout) : null };
};
const payout = (bankCode: string, amount = '100') => ({ currency: 'NGN', bankCode, amount: new Decimal(amount), workspaceId: 1 });
// A new process's rails: it reads the table afresh.
const rails = () => createRails(loadConfig({ ...cliEnv }), { redis: env.redis, sql: env.sql });

test('a rule set with the CLI routes payouts before the configured rules; list shows both; remove takes it out', async () => {
  expect((await rails().route(payout('058'))).rule).toBe('from-config');
  const set = await cli('set', '--name', 'gtb-small', '--rails', 'flutterwave,paystack', '--bank-codes', '058,057', '--max-amount', '5000');
  expect(set.code).toBe(0);
  expect(set.json).toEqual({
    name: 'gtb-small',
    position: 1,
    currency: null,
    bank_codes: ['058', '057'],
    min_amount: null,
    max_amount: '5000',
    workspace_id: null,
    rails: ['flutterwave', 'paystack'],
  });
  expect(await rails().route(payout('058'))).toEqual({ rails: ['flutterwave', 'paystack'], rule: 'gtb-small' });
  expect((await rails().route(payout('058', '5000'))).rule).toBe('from-config');
  expect((await rails().route(payout('044'))).rule).toBe('from-config');

  const list = await cli('list');
  expect(list.json).toMatchObject({ rails: ['paystack', 'flutterwave'], table: [{ name: 'gtb-small', position: 1 }], config: [{ name: 'from-config' }] });

  // The same name replaces it.
  expect((await cli('set', '--name', 'gtb-small', '--rails', 'flutterwave', '--bank-codes', '058')).json).toMatchObject({
    rails: ['flutterwave'],
    max_amount: null,
  });
  expect(await rails().route(payout('058', '9000'))).toEqual({ rails: ['flutterwave'], rule: 'gtb-small' });

  expect((await cli('remove', '--name', 'gtb-small')).json).toEqual({ name: 'gtb-small', removed: true });
  expect((await rails().route(payout('058'))).rule).toBe('from-config');
  expect((await cli('remove', '--name', 'gtb-small')).code).not.toBe(0);
});

test.each([
  [['--name', 'x', '--rails', 'mpesa'], /unknown rail: mpesa/],
  [['--name', 'x', '--rails', 'paystack', '--min-amount=-5'], /non-negative/],
  [['--name', 'x', '--rails', 'paystack', '--currency', 'naira'], /currency/],
  [['--name', 'x'], /--rails/],
])('a bad rule is refused and nothing is saved (%p)', async (args, message) => {
  const res = await cli('set', ...args);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toMatch(message);
  expect(await env.db.payoutRoutingRule.count({ where: { name: 'x' } })).toBe(0);
});

test.each([
  [['--name', 'x', '--rails', 'paystack', '--min-amount', '10', '--max-amount', '5'], /max_amount must be above min_amount/],
  [['--name', 'x', '--rails', 'paystack', '--min-amount', '10', '--max-amount', '10'], /max_amount must be above min_amount/],
  [['--name', 'x', '--rails', 'paystack', '--currency', 'ZZZ'], /currency ZZZ is not in the wallet catalog \(NGN, /],
])('a rule that could never match is a usage mistake (exit 2), and nothing is saved (%p)', async (args, message) => {
  const res = await cli('set', ...args);
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(message);
  expect(await env.db.payoutRoutingRule.count({ where: { name: 'x' } })).toBe(0);
});

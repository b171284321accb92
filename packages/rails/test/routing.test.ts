// Risk: a payout routed to the wrong rails: a rule's condition misread (an
// amount band's edge, a bank code, a workspace), a rule naming a rail the
// deployment does not run, or test mode reaching a real rail.
import { Decimal, loadConfig } from '@cowrie/core';
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createRails, parseRoutingRules, routePayout } from '../src';

const payout = (extra: Partial<{ currency: string; bankCode: string | null; amount: Decimal; workspaceId: number }> = {}) => ({
  currency: 'NGN',
  bankCode: '058',
  amount: new Decimal('1000'),
  workspaceId: 1,
  ...extra,
});
const configured = ['paystack', 'flutterwave'];

test('without rules the configured order is the route, chosen by no rule', () => {
  expect(routePayout([], configured, payout())).toEqual({ rails: configured, rule: null });
});

test('each condition: currency, destination bank, amount band (min inclusive, max exclusive), workspace; the first rule that matches wins', () => {
  const rules = parseRoutingRules(
    JSON.stringify([
      { name: 'ws-7', workspace_id: 7, rails: ['flutterwave'] },
      { name: 'zenith', bank_codes: ['057', '044'], rails: ['flutterwave', 'paystack'] },
      { name: 'small', currency: 'ngn', min_amount: '0', max_amount: '5000', rails: ['flutterwave', 'paystack'] },
      { name: 'usd', currency: 'USD', rails: ['flutterwave'] },
    ]),
  );
  expect(routePayout(rules, configured, payout({ workspaceId: 7, bankCode: '057' }))).toEqual({ rails: ['flutterwave'], rule: 'ws-7' });
  expect(routePayout(rules, configured, payout({ bankCode: '044', amount: new Decimal('9000') }))).toEqual({
    rails: ['flutterwave', 'paystack'],
    rule: 'zenith',
  });
  expect(routePayout(rules, configured, payout({ amount: new Decimal('4999.99') })).rule).toBe('small');
  expect(routePayout(rules, configured, payout({ amount: new Decimal('5000') }))).toEqual({ rails: configured, rule: null });
  expect(routePayout(rules, configured, payout({ amount: new Decimal('0') })).rule).toBe('small');
  expect(routePayout(rules, configured, payout({ bankCode: null, amount: new Decimal('9000') })).rule).toBeNull();
});

test('a rule keeps only the rails this deployment runs; one left with none is passed over', () => {
  const rules = parseRoutingRules(JSON.stringify([{ name: 'sandbox-only', rails: ['sandbox'] }, { rails: ['flutterwave', 'sandbox', 'flutterwave'] }]));
  expect(routePayout(rules, configured, payout())).toEqual({ rails: ['flutterwave'], rule: 'rule-2' });
});

test.each([
  ['not JSON', '{', /not valid JSON/],
  ['no rails', '[{"currency":"NGN"}]', /rails/],
  ['an unknown condition', '[{"rails":["paystack"],"country":"NG"}]', /country|Unrecognized/i],
  ['a negative amount', '[{"rails":["paystack"],"min_amount":"-1"}]', /non-negative/],
])('PAYOUT_ROUTING_RULES with %s stops the process at start', (_name, json, message) => {
  expect(() => parseRoutingRules(json)).toThrow(message);
});

describe('createRails', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.cleanup());

  test('routes live payouts by the rules over PAYOUT_RAILS; sandbox currencies and test mode reach the sandbox only; one rail has no breaker', async () => {
    const config = loadConfig({
      PAYOUT_RAILS: 'paystack,flutterwave',
      PAYOUT_ROUTING_RULES: JSON.stringify([{ name: 'gtb', bank_codes: ['058'], rails: ['flutterwave', 'paystack'] }]),
    });
    const live = createRails(config, env, 'live');
    expect(await live.route(payout())).toEqual({ rails: ['flutterwave', 'paystack'], rule: 'gtb' });
    expect(await live.route(payout({ bankCode: '057' }))).toEqual({ rails: ['paystack', 'flutterwave'], rule: null });
    expect(live.forCurrency('NGN').id).toBe('paystack');
    expect(live.byId('flutterwave').id).toBe('flutterwave');
    expect(live.health).not.toBeNull();
    const test = createRails(config, env, 'test');
    expect(await test.route(payout())).toEqual({ rails: ['sandbox'], rule: null });
    expect(() => test.byId('flutterwave')).toThrow(/unknown payout rail flutterwave in test mode/);
    expect(test.health).toBeNull();
    expect(createRails(loadConfig({ PAYOUT_RAIL: 'paystack' }), env).health).toBeNull();
    expect(await createRails(loadConfig({ PAYOUT_RAIL: 'paystack' }), env).route(payout())).toEqual({ rails: ['paystack'], rule: null });
  });
});

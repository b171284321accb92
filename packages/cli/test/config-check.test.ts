// Risk: a production deployment whose configuration the services will refuse
// gets past the step meant to catch it (docker-compose.yml runs
// `cowrie config check` before the migrations, so the services never start in
// a restart loop): a check that passes what the services refuse, or refuses
// what they accept, or does not name the variable.
import { loadConfig } from '@cowrie/core';
import { runCli } from '../src';

// No database and no Redis are reachable: the check touches neither.
const NOTHING = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };
const STRONG = {
  JWT_SECRET: 'a3f9c2e8b7d14f6a9e0c5b8d2f7a1c4e6b9d0f3a5c8e1b4d7f0a2c5e8b1d4f7a',
  ENCRYPTION_KEY: '9c4e7a1f3b6d8e0a2c5f7b9d1e3a6c8f0b2d4e7a9c1f3b5d8e0a2c4f6b9d1e3a',
};

test.each([
  ['no secrets', { NODE_ENV: 'production' }, /JWT_SECRET: is required in production[\s\S]*ENCRYPTION_KEY: is required in production/],
  [
    'a published secret',
    { NODE_ENV: 'production', ...STRONG, JWT_SECRET: 'change-me-to-a-long-random-secret-of-32-chars-or-more' },
    /JWT_SECRET: is a value published/,
  ],
  ['the sandbox rails without the staging flag', { NODE_ENV: 'production', ...STRONG }, /PAYOUT_RAIL: is sandbox[\s\S]*COLLECTION_RAIL: is sandbox/],
])('refuses %s in production, exit 1, naming each variable as the services do', async (_name, env, message) => {
  const out = await runCli(['config', 'check'], { ...NOTHING, ...env });
  expect(out).toMatchObject({ code: 1, stdout: '' });
  expect(out.stderr).toMatch(message);
  // The same refusal the services start with.
  expect(() => loadConfig({ ...NOTHING, ...env })).toThrow(message);
});

test.each([
  ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{bad' }],
  ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{"nope":{"status":"live"}}' }],
  ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{"collection_va":{"currencies":["NGN","GHS"]}}' }],
  ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: 'notacidr' }],
  ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/99' }],
  ['PAYOUT_ROUTING_RULES', { PAYOUT_RAILS: 'paystack,flutterwave', PAYOUT_ROUTING_RULES: '{bad' }],
  ['REDIS_URL', { REDIS_URL: 'http://x:1' }],
])('refuses a bad %s the services would refuse at start, exit 1, naming it', async (variable, env) => {
  const out = await runCli(['config', 'check'], { ...NOTHING, ...env });
  expect(out).toMatchObject({ code: 1, stdout: '' });
  expect(out.stderr).toMatch(new RegExp(`^  ${variable}: `, 'm'));
});

test('passes what the services start with, touching nothing', async () => {
  const staging = { ...NOTHING, ...STRONG, NODE_ENV: 'production', ALLOW_SANDBOX_IN_PRODUCTION: 'true' };
  expect(await runCli(['config', 'check'], staging)).toEqual({ code: 0, stdout: '{"ok":true,"node_env":"production"}', stderr: '' });
  expect(await runCli(['config', 'check'], NOTHING)).toEqual({ code: 0, stdout: '{"ok":true,"node_env":"development"}', stderr: '' });
});

test('a deprecated variable passes with a warning on stderr naming it and its replacement, never its value', async () => {
  const env = { ...NOTHING, PAYOUT_PAYSTACK_BASE_URL: 'http://127.0.0.1:4020/old-payout-url', COLLECTION_RAIL_TIMEOUT_MS: '24680' };
  const out = await runCli(['config', 'check'], env);
  expect(out).toMatchObject({ code: 0, stdout: '{"ok":true,"node_env":"development"}' });
  expect(out.stderr.split('\n')).toEqual([
    expect.stringMatching(/^cowrie: warning: PAYOUT_PAYSTACK_BASE_URL is deprecated: set PAYSTACK_BASE_URL/),
    expect.stringMatching(/^cowrie: warning: COLLECTION_RAIL_TIMEOUT_MS is deprecated: set PAYSTACK_TIMEOUT_MS/),
  ]);
  expect(out.stderr).not.toContain('old-payout-url');
  expect(out.stderr).not.toContain('24680');
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { configDeprecations, loadConfig, paystackCollectionSettings, paystackPayoutSettings, warnConfigDeprecations } from '../src/config';
import { createLogger } from '../src/logger';
import { parseRoutingRulesJson } from '../src/routing-rules';

test('defaults follow the operator contract', () => {
  const c = loadConfig({});
  expect(c.PORT).toBe(3000);
  expect(c.HOST).toBe('127.0.0.1');
  expect(c.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/cowrie');
  expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
  expect(c.PUBLIC_API_RATE_LIMIT).toBe(120);
  expect([c.VERIFY_RATE_DEST_LIMIT, c.VERIFY_RATE_BIZ_LIMIT, c.VERIFY_RATE_WINDOW_SECONDS]).toEqual([5, 20, 900]);
  expect([c.VERIFY_MAX_ATTEMPTS, c.VERIFY_CODE_TTL_SECONDS]).toEqual([5, 300]);
  expect(c.PAYOUT_SYNC_WAIT_MS).toBe(10_000);
  expect(c.WEBHOOK_ALLOWED_CIDRS).toEqual([]);
  expect(c.QUEUE_PREFIX).toBe('{cowrie}');
});

test('env values are coerced and lists split', () => {
  const c = loadConfig({ PUBLIC_API_RATE_LIMIT: '7', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8, 10.0.0.0/8' });
  expect(c.PUBLIC_API_RATE_LIMIT).toBe(7);
  expect(c.WEBHOOK_ALLOWED_CIDRS).toEqual(['127.0.0.0/8', '10.0.0.0/8']);
});

test.each([
  ['PUBLIC_API_RATE_LIMIT', '0'],
  ['PUBLIC_API_RATE_LIMIT', 'lots'],
  ['VERIFY_MAX_ATTEMPTS', '-1'],
  ['PORT', '70000'],
  ['ENCRYPTION_KEY', 'abc'],
  ['DATABASE_URL', 'not a url'],
])('a bad %s=%s stops start-up naming the variable', (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
});

const STRONG_SESSION_SECRET = '9f2c1e7a4b8d03f6e5c2a19b7d4e8f0a3c6b1d9e2f7a4c8b';
const STRONG_ENCRYPTION_KEY = '3a7f9c2e1b8d4f6a0c5e9b2d7f1a4c8e6b3d9f2a5c7e1b4d8f0a2c6e9b3d7f15';

test('production requires real secrets', () => {
  expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: is required in production[\s\S]*ENCRYPTION_KEY/);
  const ok = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: STRONG_SESSION_SECRET,
    ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY,
    ALLOW_SANDBOX_IN_PRODUCTION: 'true',
  });
  expect(ok.JWT_SECRET).toBe(STRONG_SESSION_SECRET);
});

test.each([
  ['JWT_SECRET', 'cowrie-dev-only-session-secret-do-not-use-in-production', /published/],
  ['JWT_SECRET', 'change-me-to-a-long-random-secret-of-32-chars-or-more', /published/],
  ['JWT_SECRET', 's'.repeat(40), /predictable/],
  ['JWT_SECRET', 'abcdabcdabcdabcdabcdabcdabcdabcd', /predictable/],
  ['ENCRYPTION_KEY', '00'.repeat(31) + '01', /published/],
  ['ENCRYPTION_KEY', 'ab'.repeat(32), /predictable/],
  ['METRICS_TOKEN', 'aaaaaaaaaaaaaaaaaaaa', /predictable/],
  ['OPS_PASSWORD', 'password1234', /too short or too repetitive/],
  ['COLLECTION_SANDBOX_SECRET', 'cowrie-dev-only-sandbox-notification-secret', /published/],
])('production refuses a known or weak %s (%s), naming it', (name, value, reason) => {
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: STRONG_SESSION_SECRET,
    ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY,
    ALLOW_SANDBOX_IN_PRODUCTION: 'true',
    [name]: value,
  };
  expect(() => loadConfig(env)).toThrow(new RegExp(`${name}: .*${reason.source}`));
  // Outside production the same value is accepted: development keeps working with the defaults.
  expect(() => loadConfig({ ...env, NODE_ENV: 'development' })).not.toThrow();
});

test('worker metrics ports beyond loopback require METRICS_TOKEN', () => {
  expect(() => loadConfig({ PAYOUT_WORKER_METRICS_PORT: '9101', METRICS_HOST: '0.0.0.0' })).toThrow(
    /METRICS_TOKEN: is required when worker metrics ports listen beyond loopback/,
  );
  expect(() => loadConfig({ PAYOUT_WORKER_METRICS_PORT: '9101', METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 'a-long-operator-token-1234' })).not.toThrow();
  expect(() => loadConfig({ PAYOUT_WORKER_METRICS_PORT: '9101' })).not.toThrow();
  expect(() => loadConfig({ METRICS_HOST: '0.0.0.0' })).not.toThrow();
});

test("no sandbox notification secret is assumed: the route needs one of the deployment's own", () => {
  expect(loadConfig({}).COLLECTION_SANDBOX_SECRET).toBeUndefined();
});

test('in production live mode refuses to start on a sandbox rail or code provider unless ALLOW_SANDBOX_IN_PRODUCTION=true, naming each', () => {
  const env = { NODE_ENV: 'production', JWT_SECRET: STRONG_SESSION_SECRET, ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY };
  expect(() => loadConfig(env)).toThrow(
    /PAYOUT_RAIL: is sandbox[\s\S]*COLLECTION_RAIL: is sandbox[\s\S]*VERIFY_SMS_PROVIDER: is sandbox[\s\S]*VERIFY_EMAIL_PROVIDER: is sandbox/,
  );
  const real = {
    ...env,
    PAYOUT_RAIL: 'paystack',
    PAYOUT_PAYSTACK_SECRET_KEY: 'sk_live_x',
    COLLECTION_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: 'sk_live_x',
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: 'termii-key',
  };
  expect(() => loadConfig(real)).toThrow(/VERIFY_EMAIL_PROVIDER: is sandbox/);
  expect(() => loadConfig({ ...real, VERIFY_EMAIL_PROVIDER: 'smtp', VERIFY_SMTP_URL: 'smtp://mail.example.com:587' })).not.toThrow();
  expect(loadConfig({ ...env, ALLOW_SANDBOX_IN_PRODUCTION: 'true' }).ALLOW_SANDBOX_IN_PRODUCTION).toBe(true);
  // Outside production the sandbox is the default, and needs no flag.
  expect(() => loadConfig({})).not.toThrow();
});

test('REQUIRE_MFA_FOR_ADMINS is on by default in production only, and STEP_UP_SECONDS defaults to 300', () => {
  const production = { NODE_ENV: 'production', JWT_SECRET: STRONG_SESSION_SECRET, ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY, ALLOW_SANDBOX_IN_PRODUCTION: 'true' };
  expect(loadConfig(production).REQUIRE_MFA_FOR_ADMINS).toBe(true);
  expect(loadConfig({ ...production, REQUIRE_MFA_FOR_ADMINS: 'false' }).REQUIRE_MFA_FOR_ADMINS).toBe(false);
  expect(loadConfig({}).REQUIRE_MFA_FOR_ADMINS).toBe(false);
  expect(loadConfig({ REQUIRE_MFA_FOR_ADMINS: 'true' }).REQUIRE_MFA_FOR_ADMINS).toBe(true);
  expect(() => loadConfig({ REQUIRE_MFA_FOR_ADMINS: 'yes' })).toThrow(/REQUIRE_MFA_FOR_ADMINS/);
  expect(loadConfig({}).STEP_UP_SECONDS).toBe(300);
  expect(loadConfig({ STEP_UP_SECONDS: '60' }).STEP_UP_SECONDS).toBe(60);
  expect(() => loadConfig({ STEP_UP_SECONDS: '0' })).toThrow(/STEP_UP_SECONDS/);
});

describe("production: live mode's rails are all real, or all sandbox on a staging deployment", () => {
  const base = { NODE_ENV: 'production', JWT_SECRET: STRONG_SESSION_SECRET, ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY };
  const providers = {
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: 'termii-key',
    VERIFY_EMAIL_PROVIDER: 'smtp',
    VERIFY_SMTP_URL: 'smtp://mail.example.com:587',
  };
  const payoutsReal = { PAYOUT_RAIL: 'paystack', PAYOUT_PAYSTACK_SECRET_KEY: 'sk_live_payouts' };
  const collectionsReal = { COLLECTION_RAIL: 'paystack', PAYSTACK_SECRET_KEY: 'sk_live_collections' };

  test.each([
    ['payouts real, collections sandbox', payoutsReal, /COLLECTION_RAIL: .*PAYOUT_RAIL=paystack, COLLECTION_RAIL=sandbox/],
    ['collections real, payouts sandbox', collectionsReal, /PAYOUT_RAIL: .*PAYOUT_RAIL=sandbox, COLLECTION_RAIL=paystack/],
  ])('a mix (%s) stops start-up naming each variable, with or without ALLOW_SANDBOX_IN_PRODUCTION', (_name, rails, message) => {
    for (const flag of ['true', 'false']) {
      const env = { ...base, ...providers, ...rails, ALLOW_SANDBOX_IN_PRODUCTION: flag };
      expect(() => loadConfig(env)).toThrow(message);
      expect(() => loadConfig(env)).toThrow(/all real, or all sandbox with ALLOW_SANDBOX_IN_PRODUCTION=true/);
    }
    // Outside production a mix is how development tries one real rail.
    expect(() => loadConfig({ ...base, ...providers, ...rails, NODE_ENV: 'development' })).not.toThrow();
  });

  test('every rail sandbox: refused without the flag (naming each), accepted with it (a staging deployment)', () => {
    expect(() => loadConfig({ ...base, ...providers })).toThrow(/PAYOUT_RAIL: is sandbox[\s\S]*COLLECTION_RAIL: is sandbox/);
    expect(() => loadConfig({ ...base, ...providers })).not.toThrow(/mixed/);
    expect(loadConfig({ ...base, ...providers, ALLOW_SANDBOX_IN_PRODUCTION: 'true' })).toMatchObject({ PAYOUT_RAIL: 'sandbox', COLLECTION_RAIL: 'sandbox' });
  });

  test('every rail real, with live keys: accepted, with or without the flag', () => {
    expect(loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal })).toMatchObject({ PAYOUT_RAIL: 'paystack', COLLECTION_RAIL: 'paystack' });
    expect(() => loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal, ALLOW_SANDBOX_IN_PRODUCTION: 'true' })).not.toThrow();
  });

  test.each([
    ['PAYOUT_PAYSTACK_SECRET_KEY', 'sk_test_payouts'],
    ['PAYSTACK_SECRET_KEY', 'sk_test_collections'],
    ['PAYOUT_PAYSTACK_SECRET_KEY', 'not-a-paystack-key'],
  ])('a %s that is not a live key (%s) stops start-up naming it, without printing it', (name, value) => {
    const env = { ...base, ...providers, ...payoutsReal, ...collectionsReal, [name]: value };
    let message = '';
    try {
      loadConfig(env);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(new RegExp(`${name}: .*sk_live_`));
    expect(message).not.toContain(value);
    // Development and tests run on test keys.
    expect(() => loadConfig({ ...env, NODE_ENV: 'development' })).not.toThrow();
  });

  test('PAYOUT_RAIL=paystack in production needs a Paystack key: the shared PAYSTACK_SECRET_KEY, or PAYOUT_PAYSTACK_SECRET_KEY', () => {
    // One key for both rails is enough: payouts read PAYSTACK_SECRET_KEY too.
    expect(loadConfig({ ...base, ...providers, ...collectionsReal, PAYOUT_RAIL: 'paystack' })).toMatchObject({ PAYOUT_RAIL: 'paystack' });
    // Without any key, each variable is named once.
    let message = '';
    try {
      loadConfig({ ...base, ...providers, PAYOUT_RAIL: 'paystack', COLLECTION_RAIL: 'paystack' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.match(/PAYSTACK_SECRET_KEY: is required/g)).toHaveLength(1);
    // Payouts alone on Paystack (refused as a mix too) name the shared key and the override.
    expect(() => loadConfig({ ...base, ...providers, PAYOUT_RAIL: 'paystack', ALLOW_SANDBOX_IN_PRODUCTION: 'true' })).toThrow(
      /PAYSTACK_SECRET_KEY: is required in production when PAYOUT_RAIL=paystack \(or PAYOUT_PAYSTACK_SECRET_KEY/,
    );
  });

  test('one shared test key on both Paystack rails stops start-up naming PAYSTACK_SECRET_KEY once, without printing it', () => {
    let message = '';
    try {
      loadConfig({ ...base, ...providers, PAYOUT_RAIL: 'paystack', COLLECTION_RAIL: 'paystack', PAYSTACK_SECRET_KEY: 'sk_test_shared' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.match(/PAYSTACK_SECRET_KEY: is a test key/g)).toHaveLength(1);
    expect(message).not.toContain('PAYOUT_PAYSTACK_SECRET_KEY');
    expect(message).not.toContain('sk_test_shared');
  });

  test('several payout rails (PAYOUT_RAILS) are all real: sandbox beside a real one is refused, with or without the flag', () => {
    const flutterwave = { PAYOUT_FLUTTERWAVE_SECRET_KEY: 'FLWSECK-live-payouts' };
    for (const flag of ['true', 'false']) {
      expect(() =>
        loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal, PAYOUT_RAILS: 'paystack,sandbox', ALLOW_SANDBOX_IN_PRODUCTION: flag }),
      ).toThrow(/PAYOUT_RAILS: mixes sandbox with a real rail/);
    }
    expect(loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal, ...flutterwave, PAYOUT_RAILS: 'paystack,flutterwave' })).toMatchObject({
      PAYOUT_RAIL: 'paystack',
      PAYOUT_RAILS: ['paystack', 'flutterwave'],
    });
    // Flutterwave's key: required, and a live one.
    expect(() => loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal, PAYOUT_RAILS: 'paystack,flutterwave' })).toThrow(
      /PAYOUT_FLUTTERWAVE_SECRET_KEY: is required in production/,
    );
    let message = '';
    try {
      loadConfig({ ...base, ...providers, ...payoutsReal, ...collectionsReal, PAYOUT_RAILS: 'flutterwave', PAYOUT_FLUTTERWAVE_SECRET_KEY: 'FLWSECK_TEST-abc' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/PAYOUT_FLUTTERWAVE_SECRET_KEY: is a test key/);
    expect(message).not.toContain('FLWSECK_TEST-abc');
    // Paystack further down the list still needs its live key.
    expect(() =>
      loadConfig({ ...base, ...providers, ...collectionsReal, ...flutterwave, PAYOUT_RAILS: 'flutterwave,paystack', PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_x' }),
    ).toThrow(/PAYOUT_PAYSTACK_SECRET_KEY: is a test key/);
  });

  test('a staging deployment (every rail sandbox) does not use the Paystack keys, so their kind is not checked', () => {
    expect(() =>
      loadConfig({ ...base, ...providers, ALLOW_SANDBOX_IN_PRODUCTION: 'true', PAYSTACK_SECRET_KEY: 'sk_test_x', PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_y' }),
    ).not.toThrow();
  });
});

test('PAYOUT_RAILS is an ordered list of known rails, each once; PAYOUT_RAIL alone is a list of one', () => {
  expect(loadConfig({}).PAYOUT_RAILS).toEqual(['sandbox']);
  expect(loadConfig({ PAYOUT_RAIL: 'paystack' })).toMatchObject({ PAYOUT_RAIL: 'paystack', PAYOUT_RAILS: ['paystack'] });
  expect(loadConfig({ PAYOUT_RAIL: 'sandbox', PAYOUT_RAILS: ' flutterwave , paystack ' })).toMatchObject({
    PAYOUT_RAIL: 'flutterwave',
    PAYOUT_RAILS: ['flutterwave', 'paystack'],
  });
  expect(() => loadConfig({ PAYOUT_RAILS: 'paystack,mpesa' })).toThrow(/PAYOUT_RAILS: names an unknown rail mpesa/);
  expect(() => loadConfig({ PAYOUT_RAILS: 'paystack,paystack' })).toThrow(/PAYOUT_RAILS: names a rail twice/);
});

test("TRUST_PROXY is off by default; it takes a hop count, or a list of the proxies' addresses and CIDRs (what express reads as `trust proxy`)", () => {
  expect(loadConfig({}).TRUST_PROXY).toBe(false);
  expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
  expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(0);
  expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8, ::1, loopback' }).TRUST_PROXY).toEqual([
    '10.0.0.0/8',
    '192.168.1.7',
    'fd00::/8',
    '::1',
    'loopback',
  ]);
});

test.each([
  ['true', /hop count/],
  ['-1', /hop count/],
  ['1.5', /hop count/],
  ['10.0.0.0/33', /10\.0\.0\.0\/33/],
  ['fd00::/129', /fd00::\/129/],
  ['10.0.0.300', /10\.0\.0\.300/],
  ['10.0.0.0/8,,', /empty entry/],
  ['proxy.internal', /proxy\.internal/],
  ['10.0.0.0/ 8', /10\.0\.0\.0\/ 8/],
])('TRUST_PROXY=%s stops start-up naming the variable and the bad entry', (value, message) => {
  expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY:/);
  expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(message);
});

test('verification channels and the fraud guard: defaults, and what the WhatsApp provider needs', () => {
  const c = loadConfig({});
  expect([c.VERIFY_FRAUD_GUARD, c.VERIFY_FRAUD_GUARD_MIN_STARTS, c.VERIFY_FRAUD_GUARD_MIN_CONVERSION]).toEqual(['monitor', 30, 0.2]);
  expect(c.VERIFY_WHATSAPP_PROVIDER).toBe('sandbox');
  expect(loadConfig({ VERIFY_FRAUD_GUARD: 'block', VERIFY_FRAUD_GUARD_MIN_STARTS: '5', VERIFY_FRAUD_GUARD_MIN_CONVERSION: '0.5' })).toMatchObject({
    VERIFY_FRAUD_GUARD: 'block',
    VERIFY_FRAUD_GUARD_MIN_STARTS: 5,
    VERIFY_FRAUD_GUARD_MIN_CONVERSION: 0.5,
  });
  expect(() => loadConfig({ VERIFY_FRAUD_GUARD: 'strict' })).toThrow(/VERIFY_FRAUD_GUARD/);
  expect(() => loadConfig({ VERIFY_FRAUD_GUARD_MIN_CONVERSION: '1.5' })).toThrow(/VERIFY_FRAUD_GUARD_MIN_CONVERSION/);
  expect(() => loadConfig({ VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud' })).toThrow(
    /WHATSAPP_ACCESS_TOKEN: is required when VERIFY_WHATSAPP_PROVIDER=whatsapp_cloud[\s\S]*WHATSAPP_PHONE_NUMBER_ID: is required/,
  );
  expect(() =>
    loadConfig({ VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud', WHATSAPP_ACCESS_TOKEN: 't', WHATSAPP_PHONE_NUMBER_ID: '105954558954427' }),
  ).not.toThrow();
});

test('DASHBOARD_URL defaults to the local dashboard outside production; invitations go by email only with an SMTP provider or when asked', () => {
  expect(loadConfig({}).DASHBOARD_URL).toBe('http://localhost:3000/dashboard');
  expect(loadConfig({ PORT: '8080', DASHBOARD_URL: 'https://pay.example.com/dashboard/' }).DASHBOARD_URL).toBe('https://pay.example.com/dashboard');
  expect(loadConfig({}).DASHBOARD_INVITES).toBe('one_time_password');
  expect(loadConfig({ VERIFY_EMAIL_PROVIDER: 'smtp', VERIFY_SMTP_URL: 'smtp://mail.example.com:25' }).DASHBOARD_INVITES).toBe('email');
  expect(loadConfig({ DASHBOARD_INVITES: 'email' }).DASHBOARD_INVITES).toBe('email');
  const production = { NODE_ENV: 'production', JWT_SECRET: STRONG_SESSION_SECRET, ENCRYPTION_KEY: STRONG_ENCRYPTION_KEY, ALLOW_SANDBOX_IN_PRODUCTION: 'true' };
  expect(loadConfig(production).DASHBOARD_URL).toBeUndefined();
  // Production with SMTP but no address for the links keeps one-time passwords; asking for email without one is refused.
  expect(loadConfig({ ...production, VERIFY_EMAIL_PROVIDER: 'smtp', VERIFY_SMTP_URL: 'smtp://mail.example.com:25' }).DASHBOARD_INVITES).toBe(
    'one_time_password',
  );
  expect(() => loadConfig({ ...production, DASHBOARD_INVITES: 'email' })).toThrow(/DASHBOARD_URL/);
});

describe('Paystack: one set of variables for both rails', () => {
  test('both rails read PAYSTACK_SECRET_KEY, PAYSTACK_BASE_URL and PAYSTACK_TIMEOUT_MS, with the same defaults', () => {
    const shared = loadConfig({ PAYSTACK_SECRET_KEY: 'sk_test_shared', PAYSTACK_BASE_URL: 'http://127.0.0.1:4010', PAYSTACK_TIMEOUT_MS: '700' });
    const expected = { secretKey: 'sk_test_shared', keySetting: 'PAYSTACK_SECRET_KEY', baseUrl: 'http://127.0.0.1:4010', timeoutMs: 700 };
    expect(paystackPayoutSettings(shared)).toEqual(expected);
    expect(paystackCollectionSettings(shared)).toEqual(expected);
    const defaults = loadConfig({});
    for (const settings of [paystackPayoutSettings(defaults), paystackCollectionSettings(defaults)])
      expect(settings).toEqual({ secretKey: undefined, keySetting: 'PAYSTACK_SECRET_KEY', baseUrl: 'https://api.paystack.co', timeoutMs: 15_000 });
  });

  test("PAYOUT_PAYSTACK_SECRET_KEY (a separate Paystack business for payouts) is the payout rail's key only, and not deprecated", () => {
    const env = { PAYSTACK_SECRET_KEY: 'sk_test_collections', PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_payouts', PAYSTACK_BASE_URL: 'http://127.0.0.1:4010' };
    const c = loadConfig(env);
    expect(paystackPayoutSettings(c)).toMatchObject({
      secretKey: 'sk_test_payouts',
      keySetting: 'PAYOUT_PAYSTACK_SECRET_KEY',
      baseUrl: 'http://127.0.0.1:4010',
    });
    expect(paystackCollectionSettings(c)).toMatchObject({ secretKey: 'sk_test_collections', keySetting: 'PAYSTACK_SECRET_KEY' });
    // The override alone: payouts have a key, collections none.
    const alone = loadConfig({ PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_payouts' });
    expect(paystackPayoutSettings(alone).secretKey).toBe('sk_test_payouts');
    expect(paystackCollectionSettings(alone).secretKey).toBeUndefined();
    expect(configDeprecations(env)).toEqual([]);
  });

  test('the old names still set what they set, and each is warned about once, by name, never with its value', () => {
    const env = {
      PAYSTACK_BASE_URL: 'http://127.0.0.1:4010',
      PAYSTACK_TIMEOUT_MS: '700',
      PAYOUT_PAYSTACK_BASE_URL: 'http://127.0.0.1:4020/old-payout-url',
      PAYOUT_PAYSTACK_TIMEOUT_MS: '13579',
      COLLECTION_RAIL_TIMEOUT_MS: '24680',
    };
    const c = loadConfig(env);
    expect(paystackPayoutSettings(c)).toMatchObject({ baseUrl: 'http://127.0.0.1:4020/old-payout-url', timeoutMs: 13579 });
    expect(paystackCollectionSettings(c)).toMatchObject({ baseUrl: 'http://127.0.0.1:4010', timeoutMs: 24680 });
    // Each old name alone, without the new ones, works the same.
    expect(paystackPayoutSettings(loadConfig({ PAYOUT_PAYSTACK_TIMEOUT_MS: '900' })).timeoutMs).toBe(900);
    expect(paystackCollectionSettings(loadConfig({ PAYOUT_PAYSTACK_TIMEOUT_MS: '900' })).timeoutMs).toBe(15_000);
    expect(() => loadConfig({ PAYOUT_PAYSTACK_BASE_URL: 'not a url' })).toThrow(/PAYOUT_PAYSTACK_BASE_URL/);

    expect(configDeprecations(env).map((d) => [d.variable, d.replacement])).toEqual([
      ['PAYOUT_PAYSTACK_BASE_URL', 'PAYSTACK_BASE_URL'],
      ['PAYOUT_PAYSTACK_TIMEOUT_MS', 'PAYSTACK_TIMEOUT_MS'],
      ['COLLECTION_RAIL_TIMEOUT_MS', 'PAYSTACK_TIMEOUT_MS'],
    ]);
    // An empty value is unset, as loadConfig reads it.
    expect(configDeprecations({ PAYOUT_PAYSTACK_BASE_URL: '' })).toEqual([]);

    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _e, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    warnConfigDeprecations(createLogger({ service: 'test', destination }), env);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      const parsed = JSON.parse(line) as { level: number; msg: string; variable: string };
      expect(parsed.level).toBe(40);
      expect(parsed.msg).toContain(`${parsed.variable} is deprecated`);
      for (const value of [env.PAYOUT_PAYSTACK_BASE_URL, env.PAYOUT_PAYSTACK_TIMEOUT_MS, env.COLLECTION_RAIL_TIMEOUT_MS]) expect(line).not.toContain(value);
    }
  });
});

describe('values read later (the channel override, the allowed CIDRs, the routing rules, Redis) are checked with the rest, naming the variable', () => {
  test.each([
    ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{bad' }, /CHANNELS_OVERRIDE: is not JSON/],
    ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{"nope":{"status":"live"}}' }, /CHANNELS_OVERRIDE: .*"nope" \(the channels are card, /],
    ['CHANNELS_OVERRIDE', { CHANNELS_OVERRIDE: '{"card":{"status":"on"}}' }, /CHANNELS_OVERRIDE: card\.status/],
    // A deposit in a currency no wallet holds could never be credited (the transfer in is unmatched, no_wallet).
    [
      'CHANNELS_OVERRIDE',
      { CHANNELS_OVERRIDE: '{"collection_va":{"currencies":["NGN","GHS"]}}' },
      /CHANNELS_OVERRIDE: collection_va\.currencies\.1: GHS is not in the wallet catalog \(NGN, EUR, GBP, USD, USDT, JPY\)/,
    ],
    [
      'CHANNELS_OVERRIDE',
      { CHANNELS_OVERRIDE: '{"reserved_va":{"currencies":["zzz"]}}' },
      /CHANNELS_OVERRIDE: reserved_va\.currencies\.0: ZZZ is not in the wallet catalog/,
    ],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: 'notacidr' }, /WEBHOOK_ALLOWED_CIDRS: not a CIDR: "notacidr"/],
    ['WEBHOOK_ALLOWED_CIDRS', { WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,10.0.0.0/99' }, /WEBHOOK_ALLOWED_CIDRS: not a CIDR: "10.0.0.0\/99"/],
    ['PAYOUT_ROUTING_RULES', { PAYOUT_RAILS: 'paystack,flutterwave', PAYOUT_ROUTING_RULES: '{bad' }, /PAYOUT_ROUTING_RULES: is not valid JSON/],
    ['PAYOUT_ROUTING_RULES', { PAYOUT_ROUTING_RULES: '[{"currency":"NGN"}]' }, /PAYOUT_ROUTING_RULES: 0\.rails/],
    // A rule in a currency no wallet holds never matches a payout.
    [
      'PAYOUT_ROUTING_RULES',
      { PAYOUT_ROUTING_RULES: '[{"currency":"GHS","rails":["sandbox"]}]' },
      /PAYOUT_ROUTING_RULES: 0\.currency GHS is not in the wallet catalog/,
    ],
    ['REDIS_URL', { REDIS_URL: 'http://x:1' }, /REDIS_URL: expected redis:\/\/ or rediss:\/\//],
    ['REDIS_URL', { REDIS_URL: 'ftp://redis.internal:6379' }, /REDIS_URL: expected redis:\/\/ or rediss:\/\//],
    // ioredis would read the path of a bare host:port as a Unix socket's, and turns TLS on for a lower-case rediss:// only.
    ['REDIS_URL', { REDIS_URL: 'redis-host:6379/2' }, /REDIS_URL: expected redis:\/\/ or rediss:\/\//],
    ['REDIS_URL', { REDIS_URL: 'REDISS://redis.internal:6380' }, /REDIS_URL: expected redis:\/\/ or rediss:\/\//],
  ])('a bad %s is refused by name', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  test('good values pass: a channel file and override, CIDRs, routing rules, a Redis URL or socket path', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cowrie-config-'));
    try {
      const file = path.join(dir, 'channels.json');
      writeFileSync(file, '{"open_banking":{"status":"live"}}');
      const c = loadConfig({
        CHANNELS_FILE: file,
        CHANNELS_OVERRIDE: '{"card":{"label":"Cards"}}',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8, ::1/128, 10.1.2.3',
        PAYOUT_RAILS: 'paystack,flutterwave',
        PAYOUT_ROUTING_RULES: '[{"name":"gtb","bank_codes":["058"],"rails":["flutterwave","paystack"]}]',
        REDIS_URL: 'rediss://user:pw@redis.internal:6380/2',
      });
      expect(c.CHANNELS_FILE).toBe(file);
      expect(c.WEBHOOK_ALLOWED_CIDRS).toEqual(['127.0.0.0/8', '::1/128', '10.1.2.3']);
      // ioredis takes a Unix socket's path too, and host:port or //host:port as redis://.
      for (const url of ['/var/run/redis/redis.sock', 'localhost:6379', '127.0.0.1:6379', '//redis:6379'])
        expect(loadConfig({ REDIS_URL: url }).REDIS_URL).toBe(url);
      // A channel file's content is checked where it can be read; one this process cannot read is the gateway's to refuse.
      const bad = path.join(dir, 'bad-channels.json');
      writeFileSync(bad, '{"nope":{"status":"live"}}');
      expect(() => loadConfig({ CHANNELS_FILE: bad })).toThrow(/CHANNELS_FILE: .*"nope"/);
      writeFileSync(bad, '{"open_banking":{"status":"live","currencies":["NGN","GHS"]}}');
      expect(() => loadConfig({ CHANNELS_FILE: bad })).toThrow(/CHANNELS_FILE: open_banking\.currencies\.1: GHS is not in the wallet catalog/);
      // A wallet currency in any case passes (the catalog uppercases it).
      writeFileSync(file, '{"reserved_va":{"currencies":["ngn","eur","GBP"]}}');
      expect(loadConfig({ CHANNELS_FILE: file }).CHANNELS_FILE).toBe(file);
      expect(loadConfig({ CHANNELS_FILE: '/nonexistent/channels.json' }).CHANNELS_FILE).toBe('/nonexistent/channels.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('a routing rule names any currency of the wallet catalog (USDT too), in any letter case', () => {
  const json = '[{"currency":"usdt","rails":["sandbox"]},{"currency":"NGN","rails":["sandbox"]}]';
  expect(() => loadConfig({ PAYOUT_RAILS: 'sandbox', PAYOUT_ROUTING_RULES: json })).not.toThrow();
  const parsed = parseRoutingRulesJson(json);
  expect('rules' in parsed && parsed.rules.map((r) => r.currency)).toEqual(['USDT', 'NGN']);
});

import { loadConfig } from './config';

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

test('production requires real secrets', () => {
  expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: is required in production[\s\S]*ENCRYPTION_KEY/);
  const ok = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'ab'.repeat(32) });
  expect(ok.JWT_SECRET).toBe('s'.repeat(40));
});

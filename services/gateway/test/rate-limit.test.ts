// Risk: the per-key request budget not enforced at its boundary, shared
// wrongly between keys, skipped by the test helpers (a test key that could
// trigger events without limit), or its headers missing from a /v1 response.
import { createApiKey } from '@cowrie/accounts';
import { hitPublicApiBudget } from '@cowrie/api-limits';
import { createKeyFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
const LIMIT = 5;

beforeAll(async () => {
  gw = await startTestGateway({ PUBLIC_API_RATE_LIMIT: String(LIMIT) });
});
afterAll(() => gw.close());

/** Waits, if needed, so the next LIMIT+1 requests land in one 60-second window. */
async function awayFromWindowEdge() {
  const intoWindow = (Date.now() / 1000) % 60;
  if (intoWindow > 55) await new Promise((r) => setTimeout(r, (60.2 - intoWindow) * 1000));
}

test('the budget is exact at its boundary, with headers on every response and the 429', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db);
  await awayFromWindowEdge();
  const windowEnd = Math.floor(Date.now() / 60_000) * 60 + 60;
  for (let i = 1; i <= LIMIT; i++) {
    const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));
  }
  const limited = await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect(limited.status).toBe(429);
  expect(limited.body.error.code).toBe('rate_limited');
  expect(limited.body.error.message).toBe('Rate limit exceeded');
  expect(limited.body.error.details.limit).toBe(LIMIT);
  expect(limited.body.error.details.retry_after_seconds).toBeGreaterThanOrEqual(1);
  expect(limited.body.error.details.retry_after_seconds).toBeLessThanOrEqual(60);
  expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(limited.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
  expect(limited.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));
  // Remaining never goes below 0 however far past the limit.
  const again = await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
});

test('headers also ride on 404 and 403 responses of an authenticated /v1 request', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db, { scopes: ['payouts:write'] });
  const notFound = await call(gw.url, 'GET', '/v1/nope', { token: key });
  expect(notFound.status).toBe(404);
  expect(notFound.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
  const forbidden = await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect(forbidden.status).toBe(403);
  expect(forbidden.headers.get('x-ratelimit-remaining')).not.toBeNull();
});

test('a request refused 401 (no key, a malformed, unknown or revoked one) carries the headers of its address’s budget for such requests, and a 429 past it', async () => {
  const gwAnon = await startTestGateway({ PUBLIC_API_RATE_LIMIT: String(LIMIT), PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT: '4' });
  try {
    const { workspace } = await createWorkspaceWithKey(gwAnon.env.db);
    const revoked = await createApiKey(gwAnon.env.db, { workspaceId: workspace.id, scopes: ['read'] });
    await gwAnon.env.db.apiKey.update({ where: { id: revoked.id }, data: { revokedAt: new Date() } });
    await awayFromWindowEdge();
    const windowEnd = Math.floor(Date.now() / 60_000) * 60 + 60;
    const refusals = [
      await call(gwAnon.url, 'GET', '/v1/channels'),
      await call(gwAnon.url, 'GET', '/v1/channels', { token: 'not-a-key' }),
      await call(gwAnon.url, 'POST', '/v1/transfers', { token: 'ck_test_abcdefabcdefabcd_0000000000000000000000000000000000000000000', body: {} }),
      await call(gwAnon.url, 'GET', '/v1/balances', { token: revoked.key }),
    ];
    refusals.forEach((res, i) => {
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBe('4');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));
    });
    const limited = await call(gwAnon.url, 'GET', '/v1/channels');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', message: 'Rate limit exceeded', details: { limit: 4 } });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('retry-after')).not.toBeNull();
    // Past it, the address is refused before any key is looked up (a guess costs no database read): a valid key waits too.
    const { key } = await createWorkspaceWithKey(gwAnon.env.db);
    const valid = await call(gwAnon.url, 'GET', '/v1/channels', { token: key });
    expect(valid.status).toBe(429);
    expect(valid.headers.get('x-ratelimit-limit')).toBe('4');
    expect(valid.headers.get('x-ratelimit-remaining')).toBe('0');
  } finally {
    await gwAnon.close();
  }
});

test('the budget is per API key, not per workspace', async () => {
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db);
  const second = await createApiKey(gw.env.db, { workspaceId: workspace.id, scopes: ['read'] });
  await awayFromWindowEdge();
  for (let i = 0; i < LIMIT; i++) await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect((await call(gw.url, 'GET', '/v1/channels', { token: key })).status).toBe(429);
  const other = await call(gw.url, 'GET', '/v1/channels', { token: second.key });
  expect(other.status).toBe(200);
  expect(other.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
});

test('the test helpers spend the budget like any /v1 route, and so does a live key they answer 404', async () => {
  const { workspace, key: liveKey } = await createWorkspaceWithKey(gw.env.db);
  const testKey = await createKeyFor(gw.env.db, workspace.id, 'test');
  const trigger = (token: string) => call(gw.url, 'POST', '/v1/test_helpers/webhooks/trigger', { token, body: { event: 'transfer.completed' } });
  await awayFromWindowEdge();
  for (let i = 1; i <= LIMIT; i++) {
    const res = await trigger(testKey);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
  }
  const limited = await trigger(testKey);
  expect(limited.status).toBe(429);
  expect(limited.body.error.code).toBe('rate_limited');
  // A live key is told the helper does not exist, and each telling counts.
  for (let i = 1; i <= LIMIT; i++) {
    const res = await trigger(liveKey);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
  }
  expect((await trigger(liveKey)).status).toBe(429);
});

test('the window is aligned to the clock and a new window starts fresh', async () => {
  const opts = { keyPrefix: gw.env.config.REDIS_KEY_PREFIX, apiKeyLookupId: 'ffffffffffffffff', limit: 2 };
  const t0 = Date.UTC(2030, 0, 1, 0, 0, 59, 500); // last half second of a window
  expect((await hitPublicApiBudget(gw.env.redis, { ...opts, now: t0 })).resetAt).toBe(t0 / 1000 + 0.5);
  await hitPublicApiBudget(gw.env.redis, { ...opts, now: t0 });
  const third = await hitPublicApiBudget(gw.env.redis, { ...opts, now: t0 });
  expect(third.allowed).toBe(false);
  expect(third.retryAfterSeconds).toBe(1);
  const next = await hitPublicApiBudget(gw.env.redis, { ...opts, now: t0 + 600 });
  expect(next.allowed).toBe(true);
  expect(next.remaining).toBe(1);
});

test('replicas share the budget: two gateways on one Redis count together', async () => {
  const second = await startTestGateway({ PUBLIC_API_RATE_LIMIT: String(LIMIT), REDIS_KEY_PREFIX: gw.env.config.REDIS_KEY_PREFIX });
  try {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    // The second gateway has its own database; give it the same key row.
    const row = await gw.env.db.apiKey.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const ws = await gw.env.db.workspace.findUniqueOrThrow({ where: { id: row.workspaceId } });
    await second.env.db.workspace.create({ data: { id: ws.id, name: ws.name } });
    await second.env.db.apiKey.create({ data: { ...row, scopes: row.scopes } });
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const base = i % 2 === 0 ? gw.url : second.url;
      statuses.push((await call(base, 'GET', '/v1/channels', { token: key })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses[LIMIT]).toBe(429);
  } finally {
    await second.close();
  }
});

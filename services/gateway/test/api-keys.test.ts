// Risk: a business's keys managed by someone else (another workspace, an API
// key), a key shown twice or written in a list or a log, a revoked key that
// still works on the next request, a rolled key that stops at once (an
// outage) or never stops, a retried roll that makes two keys, a last-used
// time written on every request, a key's secret handed to another user who
// sent the same Idempotency-Key, a revoke that a roll at the same moment
// undoes (the key working through the grace period after "revoked"), two
// rolls at the same moment that leave two successors.
import { createUserFor } from '@cowrie/testing';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let a: { workspaceId: number; token: string; apiKey: string };
let b: { workspaceId: number; token: string; apiKey: string };

beforeAll(async () => {
  gw = await startTestGateway({ DASHBOARD_RATE_LIMIT: '10000' });
  a = await signInNewWorkspace(gw, 'Keys A');
  b = await signInNewWorkspace(gw, 'Keys B');
});
afterAll(async () => {
  await gw?.close();
});

const createKey = (token: string, body: unknown, headers: Record<string, string> = {}) => call(gw.url, 'POST', '/api-keys', { token, body, headers });
const channels = (key: string) => call(gw.url, 'GET', '/v1/channels', { token: key });

test('create answers the key once; it works on /v1 with its scopes; the list shows its prefix, never the key', async () => {
  const created = await createKey(a.token, { name: 'Checkout server', scopes: ['read', 'payouts:write', 'read'] });
  expect(created.status).toBe(201);
  const key = created.body.data.key as string;
  expect(key).toMatch(/^ck_live_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  expect(created.body.data).toMatchObject({
    name: 'Checkout server',
    mode: 'live',
    scopes: ['read', 'payouts:write'],
    status: 'active',
    last_used_at: null,
    expires_at: null,
  });
  expect(created.body.data.prefix).toBe(key.split('_').slice(0, 3).join('_'));
  // The secret part: everything after the prefix (it may itself hold '_').
  const secret = key.slice(created.body.data.prefix.length + 1);

  expect((await channels(key)).status).toBe(200);
  const denied = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination: '+2348012345678' } });
  expect(denied.status).toBe(403);

  const list = await call(gw.url, 'GET', '/api-keys', { token: a.token });
  expect(list.status).toBe(200);
  const listed = list.body.data.find((k: { id: number }) => k.id === created.body.data.id);
  expect(listed).toMatchObject({ name: 'Checkout server', prefix: created.body.data.prefix, status: 'active' });
  expect(JSON.stringify(list.body)).not.toContain(secret);
  expect(list.body.data.every((k: Record<string, unknown>) => !('key' in k))).toBe(true);
  // The plaintext key is never written in a log line.
  expect(gw.env.logLines.join('')).not.toContain(secret);
});

test('a test-mode session makes and lists test keys; live and test lists are apart', async () => {
  const created = await createKey(a.token, { name: 'Sandbox', scopes: ['read'] }, { 'Cowrie-Mode': 'test' });
  expect(created.status).toBe(201);
  expect(created.body.data.key).toMatch(/^ck_test_/);
  expect(created.body.data.mode).toBe('test');
  const testList = await call(gw.url, 'GET', '/api-keys', { token: a.token, headers: { 'Cowrie-Mode': 'test' } });
  expect(testList.body.data.map((k: { mode: string }) => k.mode)).toEqual(testList.body.data.map(() => 'test'));
  const liveList = await call(gw.url, 'GET', '/api-keys', { token: a.token });
  expect(liveList.body.data.some((k: { id: number }) => k.id === created.body.data.id)).toBe(false);
});

test.each([
  [{ scopes: ['read'] }, 'name'],
  [{ name: '', scopes: ['read'] }, 'name'],
  [{ name: 'x'.repeat(101), scopes: ['read'] }, 'name'],
  [{ name: 'x', scopes: [] }, 'scopes'],
  [{ name: 'x', scopes: ['read', 'fly'] }, 'scopes'],
  [{ name: 'x', scopes: 'read' }, 'scopes'],
])('bad input %j is a 400 naming %s, and nothing is made', async (body, field) => {
  const before = await gw.env.db.apiKey.count();
  const res = await createKey(a.token, body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(String(res.body.error.details.field)).toMatch(new RegExp(`^${field}`));
  expect(await gw.env.db.apiKey.count()).toBe(before);
});

test('only a dashboard session manages keys: an API key, no token or a bad token is 401', async () => {
  expect((await call(gw.url, 'GET', '/api-keys', { token: a.apiKey })).status).toBe(401);
  expect((await call(gw.url, 'GET', '/api-keys')).status).toBe(401);
  expect((await createKey('not-a-token', { name: 'x', scopes: ['read'] })).status).toBe(401);
});

test('a user of workspace B gets not_found for every key of workspace A, and never sees them listed', async () => {
  const created = await createKey(a.token, { name: 'A only', scopes: ['read'] });
  const id = created.body.data.id as number;
  expect((await call(gw.url, 'DELETE', `/api-keys/${id}`, { token: b.token })).body.error.code).toBe('not_found');
  expect((await call(gw.url, 'POST', `/api-keys/${id}/roll`, { token: b.token, body: {} })).body.error.code).toBe('not_found');
  const listB = await call(gw.url, 'GET', '/api-keys', { token: b.token });
  expect(listB.body.data.some((k: { id: number }) => k.id === id)).toBe(false);
  // A's key still works: B's attempts changed nothing.
  expect((await channels(created.body.data.key)).status).toBe(200);
  for (const bad of ['0', '-1', 'abc', '99999999999', '2147483648']) {
    expect((await call(gw.url, 'DELETE', `/api-keys/${bad}`, { token: a.token })).status).toBe(404);
  }
});

test('revoke: the next request with the key is 401; revoking again answers the same', async () => {
  const created = await createKey(a.token, { name: 'Leaked', scopes: ['read'] });
  expect((await channels(created.body.data.key)).status).toBe(200);
  const revoked = await call(gw.url, 'DELETE', `/api-keys/${created.body.data.id}`, { token: a.token });
  expect(revoked.status).toBe(200);
  expect(revoked.body.data).toMatchObject({ id: created.body.data.id, status: 'revoked' });
  const next = await channels(created.body.data.key);
  expect(next.status).toBe(401);
  expect(next.body.error.code).toBe('unauthorized');
  const again = await call(gw.url, 'DELETE', `/api-keys/${created.body.data.id}`, { token: a.token });
  expect(again.body.data).toEqual(revoked.body.data);
  // A revoked key cannot be rolled.
  const roll = await call(gw.url, 'POST', `/api-keys/${created.body.data.id}/roll`, { token: a.token, body: { grace_seconds: 0 } });
  expect(roll.status).toBe(400);
  expect(roll.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'id', reason: 'api_key_revoked' } });
});

test('roll: a new key with the same name and scopes; the old one works through the grace period, then 401', async () => {
  const created = await createKey(a.token, { name: 'Rotating', scopes: ['read', 'collections:write'] });
  const old = created.body.data.key as string;
  const rolled = await call(gw.url, 'POST', `/api-keys/${created.body.data.id}/roll`, { token: a.token, body: { grace_seconds: 2 } });
  expect(rolled.status).toBe(201);
  const fresh = rolled.body.data.key as string;
  expect(fresh).not.toBe(old);
  expect(rolled.body.data).toMatchObject({ name: 'Rotating', scopes: ['read', 'collections:write'], status: 'active' });
  expect(rolled.body.data.previous).toMatchObject({ id: created.body.data.id, status: 'expiring' });
  expect(Date.parse(rolled.body.data.previous.expires_at) - Date.now()).toBeLessThanOrEqual(2000);

  expect((await channels(old)).status).toBe(200);
  expect((await channels(fresh)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  expect((await channels(old)).status).toBe(401);
  expect((await channels(fresh)).status).toBe(200);
  const list = await call(gw.url, 'GET', '/api-keys', { token: a.token });
  expect(list.body.data.find((k: { id: number }) => k.id === created.body.data.id).status).toBe('revoked');
});

test('roll with grace 0 stops the old key now; the default grace is a day; over a week is refused', async () => {
  const now = await createKey(a.token, { name: 'Now', scopes: ['read'] });
  await call(gw.url, 'POST', `/api-keys/${now.body.data.id}/roll`, { token: a.token, body: { grace_seconds: 0 } });
  expect((await channels(now.body.data.key)).status).toBe(401);

  const day = await createKey(a.token, { name: 'Day', scopes: ['read'] });
  const rolled = await call(gw.url, 'POST', `/api-keys/${day.body.data.id}/roll`, { token: a.token, body: {} });
  const graceMs = Date.parse(rolled.body.data.previous.expires_at) - Date.now();
  expect(graceMs).toBeGreaterThan(24 * 3600_000 - 60_000);
  expect(graceMs).toBeLessThanOrEqual(24 * 3600_000);

  const tooLong = await call(gw.url, 'POST', `/api-keys/${day.body.data.id}/roll`, { token: a.token, body: { grace_seconds: 7 * 24 * 3600 + 1 } });
  expect(tooLong.status).toBe(400);
  expect(tooLong.body.error.details.field).toBe('grace_seconds');
});

test('a rolled key is not rolled again (its successor is): 400 api_key_rolled, no third key, its grace unchanged; it can still be revoked', async () => {
  const created = await createKey(a.token, { name: 'Rolled once', scopes: ['read'] });
  const id = created.body.data.id as number;
  const first = await call(gw.url, 'POST', `/api-keys/${id}/roll`, { token: a.token, body: { grace_seconds: 600 } });
  expect(first.status).toBe(201);
  const again = await call(gw.url, 'POST', `/api-keys/${id}/roll`, { token: a.token, body: { grace_seconds: 60 } });
  expect(again.status).toBe(400);
  expect(again.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'id', reason: 'api_key_rolled' } });
  expect(await gw.env.db.apiKey.count({ where: { workspaceId: a.workspaceId, name: 'Rolled once' } })).toBe(2);
  const old = await gw.env.db.apiKey.findUniqueOrThrow({ where: { id } });
  expect(old.revokedAt?.toISOString()).toBe(first.body.data.previous.expires_at);
  expect((await channels(created.body.data.key)).status).toBe(200);
  // The successor rolls as usual.
  expect((await call(gw.url, 'POST', `/api-keys/${first.body.data.id}/roll`, { token: a.token, body: { grace_seconds: 60 } })).status).toBe(201);
  const revoked = await call(gw.url, 'DELETE', `/api-keys/${id}`, { token: a.token });
  expect(revoked.body.data.status).toBe('revoked');
  expect((await channels(created.body.data.key)).status).toBe(401);
});

describe('a revoke and a roll, or two rolls, of one key at the same moment', () => {
  const lockWaiters = async () =>
    (
      await gw.env.db.$queryRaw<
        Array<{ n: number }>
      >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
    )[0]!.n;
  const untilLockWaiters = async (n: number) => {
    for (let i = 0; i < 200 && (await lockWaiters()) < n; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await lockWaiters()).toBe(n);
  };
  /**
   * Holds the key's row while the requests start, one after the other: each
   * reads what it reads, then waits on the row, in the order started. Then the
   * row is let go and the answers are returned in that order.
   */
  const heldWhileStarting = async (id: number, requests: Array<() => ReturnType<typeof call>>) => {
    const { answers } = await gw.env.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM "ApiKey" WHERE id = ${id} FOR UPDATE`;
        const started: Array<ReturnType<typeof call>> = [];
        for (const request of requests) {
          started.push(request());
          await untilLockWaiters(started.length);
        }
        return { answers: Promise.all(started) };
      },
      { timeout: 20_000 },
    );
    return answers;
  };
  const revoke = (id: number) => () => call(gw.url, 'DELETE', `/api-keys/${id}`, { token: a.token });
  const roll =
    (id: number, grace_seconds = 86_400) =>
    () =>
      call(gw.url, 'POST', `/api-keys/${id}/roll`, { token: a.token, body: { grace_seconds } });
  const keysNamed = (name: string) => gw.env.db.apiKey.findMany({ where: { workspaceId: a.workspaceId, name }, orderBy: { id: 'asc' } });

  test('a revoke that lands first wins: the roll is refused (400 api_key_revoked), no successor is made, and the key stops now', async () => {
    const created = await createKey(a.token, { name: 'Revoked mid-roll', scopes: ['read'] });
    const id = created.body.data.id as number;
    const [revoked, rolled] = await heldWhileStarting(id, [revoke(id), roll(id)]);
    expect(revoked!.status).toBe(200);
    expect(revoked!.body.data.status).toBe('revoked');
    expect(rolled!.status).toBe(400);
    expect(rolled!.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'id', reason: 'api_key_revoked' } });
    expect(await keysNamed('Revoked mid-roll')).toHaveLength(1);
    const list = await call(gw.url, 'GET', '/api-keys', { token: a.token });
    expect(list.body.data.find((k: { id: number }) => k.id === id)).toMatchObject({ status: 'revoked', expires_at: revoked!.body.data.expires_at });
    expect((await channels(created.body.data.key)).status).toBe(401);
  });

  test('a revoke that lands after a roll still stops the old key now: its grace is cut short, the successor works', async () => {
    const created = await createKey(a.token, { name: 'Rolled then revoked', scopes: ['read'] });
    const id = created.body.data.id as number;
    const [rolled, revoked] = await heldWhileStarting(id, [roll(id), revoke(id)]);
    expect(rolled!.status).toBe(201);
    expect(revoked!.status).toBe(200);
    expect(revoked!.body.data.status).toBe('revoked');
    const [old, successor] = await keysNamed('Rolled then revoked');
    expect(old!.revokedAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(successor!.revokedAt).toBeNull();
    expect((await channels(created.body.data.key)).status).toBe(401);
    expect((await channels(rolled!.body.data.key)).status).toBe(200);
  });

  test('of two rolls, the first makes the one successor; the second is refused (400 api_key_rolled) and leaves the grace as the first set it', async () => {
    const created = await createKey(a.token, { name: 'Rolled twice at once', scopes: ['read'] });
    const id = created.body.data.id as number;
    const [first, second] = await heldWhileStarting(id, [roll(id, 3600), roll(id, 60)]);
    expect(first!.status).toBe(201);
    expect(second!.status).toBe(400);
    expect(second!.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'id', reason: 'api_key_rolled' } });
    const [old, ...successors] = await keysNamed('Rolled twice at once');
    expect(successors.map((k) => k.id)).toEqual([first!.body.data.id]);
    expect(old!.revokedAt!.toISOString()).toBe(first!.body.data.previous.expires_at);
  });

  test('revokes and rolls sent together, many times: every key a revoke answered as revoked stops, and no key has two successors', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => createKey(a.token, { name: `Raced ${i}`, scopes: ['read'] })));
    const raced = await Promise.all(
      keys.map(async (created) => {
        const id = created.body.data.id as number;
        const [revoked, ...rolls] = await Promise.all([revoke(id)(), roll(id)(), roll(id)(), roll(id)()]);
        return { created, revoked: revoked!, rolls };
      }),
    );
    for (const { created, revoked, rolls } of raced) {
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.status).toBe('revoked');
      expect((await channels(created.body.data.key)).status).toBe(401);
      const made = rolls.filter((r) => r.status === 201);
      expect(made.length).toBeLessThanOrEqual(1);
      for (const refused of rolls.filter((r) => r.status !== 201)) {
        expect(refused.status).toBe(400);
        expect(['api_key_revoked', 'api_key_rolled']).toContain(refused.body.error.details.reason);
      }
      expect(await keysNamed(created.body.data.name)).toHaveLength(1 + made.length);
    }
  });
});

test('a roll retried with its Idempotency-Key replays the same new key instead of making another', async () => {
  const created = await createKey(a.token, { name: 'Retried', scopes: ['read'] });
  const path = `/api-keys/${created.body.data.id}/roll`;
  const headers = { 'Idempotency-Key': `roll-${created.body.data.id}` };
  const first = await call(gw.url, 'POST', path, { token: a.token, body: { grace_seconds: 60 }, headers });
  const retry = await call(gw.url, 'POST', path, { token: a.token, body: { grace_seconds: 60 }, headers });
  expect(first.status).toBe(201);
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body.data.key).toBe(first.body.data.key);
  expect(await gw.env.db.apiKey.count({ where: { name: 'Retried' } })).toBe(2);
  const changed = await call(gw.url, 'POST', path, { token: a.token, body: { grace_seconds: 61 }, headers });
  expect(changed.status).toBe(409);
});

test('a create retried with its Idempotency-Key answers the same key instead of making a second', async () => {
  const headers = { 'Idempotency-Key': 'create-once' };
  const first = await createKey(a.token, { name: 'Created once', scopes: ['read'] }, headers);
  const retry = await createKey(a.token, { name: 'Created once', scopes: ['read'] }, headers);
  expect([first.status, retry.status]).toEqual([201, 201]);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body.data.key).toBe(first.body.data.key);
  expect(await gw.env.db.apiKey.count({ where: { name: 'Created once' } })).toBe(1);
});

test("another user of the workspace who sends the same Idempotency-Key and body gets a conflict, never the first user's new key", async () => {
  const second = await createUserFor(gw.env.db, a.workspaceId, `second-admin-${a.workspaceId}@example.com`);
  const login = await call(gw.url, 'POST', '/auth/login', { body: { email: second.email, password: second.password } });
  expect(login.status).toBe(200);
  const headers = { 'Idempotency-Key': 'shared-key-name' };
  const body = { name: 'Same request', scopes: ['read'] };
  const first = await createKey(a.token, body, headers);
  expect(first.status).toBe(201);
  const other = await createKey(login.body.data.token, body, headers);
  expect(other.status).toBe(409);
  expect(other.body.error.code).toBe('idempotency_conflict');
  expect(JSON.stringify(other.body)).not.toContain(first.body.data.key);
  expect(await gw.env.db.apiKey.count({ where: { workspaceId: a.workspaceId, name: 'Same request' } })).toBe(1);
  // The first user's retry still replays its own answer.
  const retry = await createKey(a.token, body, headers);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body.data.key).toBe(first.body.data.key);
});

test('last use is recorded, but not written on every request', async () => {
  const created = await createKey(a.token, { name: 'Busy', scopes: ['read'] });
  for (let i = 0; i < 5; i++) expect((await channels(created.body.data.key)).status).toBe(200);
  const read = async () => (await gw.env.db.apiKey.findUniqueOrThrow({ where: { id: created.body.data.id } })).lastUsedAt;
  // The write is not awaited by the request: give it a moment.
  for (let i = 0; i < 50 && !(await read()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  const first = await read();
  expect(first).toBeInstanceOf(Date);
  expect(Math.abs(first!.getTime() - Date.now())).toBeLessThan(60_000);
  for (let i = 0; i < 5; i++) await channels(created.body.data.key);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect((await read())?.getTime()).toBe(first!.getTime());
  const list = await call(gw.url, 'GET', '/api-keys', { token: a.token });
  expect(list.body.data.find((k: { id: number }) => k.id === created.body.data.id).last_used_at).toBe(first!.toISOString());
});

// Risk: a request reaching /v1 without a live key of its workspace, or with a
// scope it lacks; an API key opening dashboard routes.
import { announceApiKeyChange, apiKeyEpochKey, createApiKey, revokeApiKey } from '@cowrie/accounts';
import { createUserFor, createWorkspaceWithKey } from '@cowrie/testing';
import { requireSession } from '../src/http/api-auth';
import { sendData } from '../src/http/respond';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  // Every sign-in here comes from 127.0.0.1: the per-address failure limit is tested in signin-hardening.test.ts.
  gw = await startTestGateway({ JWT_TTL_SECONDS: '60', AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
});
afterAll(() => gw.close());

describe('API keys on /v1', () => {
  test.each([
    ['no Authorization header', undefined],
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing after it', 'Bearer '],
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key of the right shape', `Bearer ck_live_0123456789abcdef_${'A'.repeat(43)}`],
  ])('%s → 401 unauthorized', async (_name, authorization) => {
    const res = await call(gw.url, 'GET', '/v1/channels', { headers: authorization === undefined ? {} : { authorization } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(typeof res.body.request_id).toBe('string');
  });

  test('a key with the right lookup id but a wrong secret → 401', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    const forged = key.slice(0, -5) + (key.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA');
    const res = await call(gw.url, 'GET', '/v1/channels', { token: forged });
    expect(res.status).toBe(401);
  });

  test('a revoked key → 401; its sibling keys keep working', async () => {
    const { workspace, key, keyId } = await createWorkspaceWithKey(gw.env.db);
    const other = await createApiKey(gw.env.db, { workspaceId: workspace.id, scopes: ['read'] });
    expect((await call(gw.url, 'GET', '/v1/channels', { token: key })).status).toBe(200);
    // As the CLI's key revoke does: the change, then its announcement.
    await revokeApiKey(gw.env.db, keyId);
    await announceApiKeyChange(gw.deps.redis, gw.env.config.REDIS_KEY_PREFIX);
    const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect((await call(gw.url, 'GET', '/v1/channels', { token: other.key })).status).toBe(200);
  });

  test('a Redis that lost the revocation epoch (flushed, replaced) makes every gateway read its keys again', async () => {
    const { key, keyId } = await createWorkspaceWithKey(gw.env.db);
    expect((await call(gw.url, 'GET', '/v1/channels', { token: key })).status).toBe(200);
    // Revoked without an announcement, then the epoch is gone: the cached row is not trusted.
    await revokeApiKey(gw.env.db, keyId);
    await gw.deps.redis.del(apiKeyEpochKey(gw.env.config.REDIS_KEY_PREFIX));
    expect((await call(gw.url, 'GET', '/v1/channels', { token: key })).status).toBe(401);
  });

  test('requests arriving together, with several keys, live, revoked and forged, are each answered for their own key', async () => {
    const a = await createWorkspaceWithKey(gw.env.db);
    const b = await createWorkspaceWithKey(gw.env.db, { name: 'B' });
    const revoked = await createApiKey(gw.env.db, { workspaceId: a.workspace.id, scopes: ['read'] });
    await revokeApiKey(gw.env.db, revoked.id);
    await announceApiKeyChange(gw.deps.redis, gw.env.config.REDIS_KEY_PREFIX);
    const forged = b.key.slice(0, -5) + (b.key.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA');
    const tokens = [a.key, b.key, revoked.key, forged, a.key, b.key, revoked.key, forged];
    const responses = await Promise.all(tokens.map((token) => call(gw.url, 'GET', '/v1/channels', { token })));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 401, 200, 200, 401, 401]);
    const lines = gw.env.logLines.map((l) => JSON.parse(l));
    const workspaceOf = (requestId: string) => lines.find((l) => l.requestId === requestId && l.msg === 'request')?.workspaceId;
    expect(workspaceOf(responses[0]!.body.meta.request_id)).toBe(a.workspace.id);
    expect(workspaceOf(responses[1]!.body.meta.request_id)).toBe(b.workspace.id);
  });

  test('a key lacking the scope → 403 insufficient_scope', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db, { scopes: ['payouts:write'] });
    const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.details).toEqual({ required_scope: 'read' });
  });

  test('keys are stored as a hash only', async () => {
    const { key, keyId } = await createWorkspaceWithKey(gw.env.db);
    const row = await gw.env.db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(JSON.stringify(row)).not.toContain(key.split('_').slice(3).join('_'));
    expect(key).toMatch(/^ck_live_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  });

  test('API keys never appear in log lines', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    await call(gw.url, 'GET', '/v1/channels', { token: key });
    await call(gw.url, 'GET', '/v1/nope', { token: key });
    expect(gw.env.logLines.join('\n')).not.toContain(key);
  });
});

describe('dashboard sessions', () => {
  test('login answers {data: {token}} for the right password, 401 otherwise', async () => {
    const { workspace } = await createWorkspaceWithKey(gw.env.db);
    const user = await createUserFor(gw.env.db, workspace.id, 'Owner@Example.com');
    const ok = await call(gw.url, 'POST', '/auth/login', { body: { email: 'owner@example.com', password: user.password } });
    expect(ok.status).toBe(200);
    expect(typeof ok.body.data.token).toBe('string');
    expect(ok.body.meta.request_id).toBeDefined();
    const wrong = await call(gw.url, 'POST', '/auth/login', { body: { email: 'owner@example.com', password: 'wrong password!' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    const unknown = await call(gw.url, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: user.password } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
    expect(gw.env.logLines.join('\n')).not.toContain(user.password);
  });

  test('passwords are stored as scrypt hashes', async () => {
    const { workspace } = await createWorkspaceWithKey(gw.env.db);
    const user = await createUserFor(gw.env.db, workspace.id);
    const row = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(row.passwordHash).not.toContain(user.password);
  });

  test('repeated failed logins for one email from one address are limited (another address: signin-hardening.test.ts)', async () => {
    const { workspace } = await createWorkspaceWithKey(gw.env.db);
    const user = await createUserFor(gw.env.db, workspace.id, 'limited@example.com');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong password!' } })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  test('sign-ins that succeed do not count against the limit; failures after them still do', async () => {
    const { workspace } = await createWorkspaceWithKey(gw.env.db);
    const user = await createUserFor(gw.env.db, workspace.id, 'frequent@example.com');
    const login = (password: string) => call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password } });
    for (let i = 0; i < 12; i++) expect((await login(user.password)).status).toBe(200);
    const failures: number[] = [];
    for (let i = 0; i < 11; i++) failures.push((await login('wrong password!')).status);
    expect(failures).toEqual([...Array(10).fill(401), 429]);
  });

  test('concurrent wrong guesses never get past the limit', async () => {
    const { workspace } = await createWorkspaceWithKey(gw.env.db);
    const user = await createUserFor(gw.env.db, workspace.id, 'guessed@example.com');
    const statuses = await Promise.all(
      Array.from({ length: 25 }, () => call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: 'wrong password!' } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });
});

describe('the session guard', () => {
  test('accepts a session token, refuses API keys, bad and expired tokens', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.use((req, _res, next) => {
      req.id = 'test';
      req.log = gw.env.logger;
      next();
    });
    app.get('/probe', requireSession(gw.deps), (req, res) => sendData(req, res, 200, req.session));
    const { errorHandler } = await import('../src/http/error-handler');
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const { workspace, key } = await createWorkspaceWithKey(gw.env.db);
      const user = await createUserFor(gw.env.db, workspace.id);
      const login = await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
      const good = await call(url, 'GET', '/probe', { token: login.body.data.token });
      expect(good.status).toBe(200);
      const who = {
        userId: user.id,
        email: user.email,
        businessId: workspace.id,
        version: 0,
        role: 'owner',
        passwordChangeRequired: false,
        mfaEnabled: false,
        mfaEnrolmentRequired: false,
        // The sign-in a moment ago counts as a step-up.
        steppedUp: true,
        sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        issuedAt: expect.any(String),
        expiresAt: expect.any(String),
      };
      expect(good.body.data).toEqual({ ...who, workspaceId: workspace.id, mode: 'live' });
      // Cowrie-Mode: test manages the business's test side.
      const testSide = await call(url, 'GET', '/probe', { token: login.body.data.token, headers: { 'cowrie-mode': 'test' } });
      expect(testSide.body.data).toEqual({ ...who, workspaceId: workspace.test_workspace_id, mode: 'test' });
      const withKey = await call(url, 'GET', '/probe', { token: key });
      expect(withKey.status).toBe(401);
      expect(withKey.body.error.code).toBe('unauthorized');
      expect((await call(url, 'GET', '/probe')).status).toBe(401);
      const tampered = login.body.data.token.slice(0, -3) + 'abc';
      expect((await call(url, 'GET', '/probe', { token: tampered })).status).toBe(401);
      const { issueSessionToken } = await import('@cowrie/accounts');
      const expired = await issueSessionToken({ userId: user.id, workspaceId: workspace.id, version: 0 }, gw.env.config.JWT_SECRET, -10);
      expect((await call(url, 'GET', '/probe', { token: expired })).status).toBe(401);
      const otherSecret = await issueSessionToken({ userId: user.id, workspaceId: workspace.id, version: 0 }, 'x'.repeat(40), 60);
      expect((await call(url, 'GET', '/probe', { token: otherSecret })).status).toBe(401);
    } finally {
      server.close();
    }
  });
});

// Risk: a bad request reaching a 5xx or leaking internals; the envelope, request
// ids and body limits drifting from the API contract.
import { createUserFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let key: string;
let workspaceId: number;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  gw = await startTestGateway({ BODY_LIMIT: '2kb' });
  const created = await createWorkspaceWithKey(gw.env.db);
  key = created.key;
  workspaceId = created.workspace.id;
});
afterAll(() => gw.close());

test('success responses carry data and meta.request_id, equal to X-Request-Id', async () => {
  const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect(res.status).toBe(200);
  expect(res.body.meta.request_id).toMatch(UUID);
  expect(res.headers.get('x-request-id')).toBe(res.body.meta.request_id);
});

test('every request id is new', async () => {
  const a = await call(gw.url, 'GET', '/healthz');
  const b = await call(gw.url, 'GET', '/healthz');
  expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
});

test('request ids appear in log lines, with the calling workspace and key once authenticated', async () => {
  const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
  const id = res.body.meta.request_id;
  const line = gw.env.logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === id && l.msg === 'request');
  expect(line).toMatchObject({ requestId: id, workspaceId: workspaceId, apiKeyId: expect.any(Number), path: '/v1/channels', status: 200 });
});

test('unknown routes are 404 not_found in the error envelope', async () => {
  for (const [method, path, token] of [
    ['GET', '/nope', undefined],
    ['GET', '/v1/nope', key],
    ['DELETE', '/v1/channels', key],
  ] as const) {
    const res = await call(gw.url, method, path, { token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.request_id).toMatch(UUID);
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  }
});

test.each([
  ['a metadata value', 'POST', '/v1/verifications', { channel: 'sms', destination: '+2348011112222', metadata: { note: 'a\u0000b' } }, 'metadata.note'],
  ['a metadata key', 'POST', '/v1/verifications', { channel: 'sms', destination: '+2348011112222', metadata: { 'note\u0000': 'b' } }, 'metadata.note'],
  ['a narration', 'POST', '/v1/transfers', { currency: 'NGN', amount: 1, account_number: '0123456789', bank_code: '058', narration: 'a\u0000b' }, 'narration'],
  ['a sign-in email', 'POST', '/auth/login', { email: 'a\u0000@example.com', password: 'long enough password' }, 'email'],
  ['a query parameter', 'GET', '/v1/transactions?reference=%00', undefined, 'reference'],
] as const)('the NUL character in %s is 400 invalid_request naming the field (Postgres cannot store it)', async (_name, method, path, body, field) => {
  const res = await call(gw.url, method, path, { token: path.startsWith('/v1') ? key : undefined, body });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field } });
});

// JSON may escape one half of a UTF-16 pair ("\ud800"); Postgres's jsonb refuses
// such text, and its text columns would store U+FFFD in its place.
test.each([
  ['a metadata value', 'POST', '/v1/verifications', { channel: 'email', destination: 'lone@example.com', metadata: { note: 'a\udc00b' } }, 'metadata.note'],
  ['a metadata key', 'POST', '/v1/verifications', { channel: 'email', destination: 'lone@example.com', metadata: { ['note\ud800']: 'b' } }, 'metadata.note'],
  [
    'a bank name',
    'POST',
    '/v1/transfers',
    { currency: 'NGN', amount: 1, account_number: '0123456789', bank_code: '058', bank_name: 'GT\ud800Bank' },
    'bank_name',
  ],
  ['a sign-in email', 'POST', '/auth/login', { email: 'a\udfff@example.com', password: 'long enough password' }, 'email'],
] as const)('a lone UTF-16 surrogate in %s is 400 invalid_request naming the field, and nothing is written', async (_name, method, path, body, field) => {
  const counts = () => Promise.all([gw.env.db.verification.count(), gw.env.db.ledgerTransaction.count(), gw.env.db.outboxEvent.count()]);
  const before = await counts();
  const res = await call(gw.url, method, path, { token: path.startsWith('/v1') ? key : undefined, body });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field } });
  expect(res.body.error.message).toMatch(/surrogate/);
  expect(await counts()).toEqual(before);
});

test('a surrogate pair (an emoji) is text like any other', async () => {
  const res = await call(gw.url, 'POST', '/v1/verifications', {
    token: key,
    body: { channel: 'email', destination: 'pair@example.com', metadata: { note: 'paid \ud83d\ude00' } },
  });
  expect(res.status).toBe(201);
});

// The key is checked before the body is read: a request without a usable key
// is 401 whatever its body, and an authenticated one counts against its
// budget and carries the X-RateLimit-* headers, its 400 or 413 included.
test.each([
  ['no key', undefined],
  ['an unknown key', 'ck_live_not_a_key_at_all_0000000000'],
])('a broken or oversized /v1 body with %s is 401 unauthorized', async (_name, token) => {
  for (const rawBody of ['{', JSON.stringify({ narration: 'x'.repeat(5000) })]) {
    const res = await call(gw.url, 'POST', '/v1/transfers', { token, rawBody });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  }
});

test('a broken or oversized /v1 body with a key is 400 or 413 with the rate-limit headers, and counts against the budget', async () => {
  const broken = await call(gw.url, 'POST', '/v1/transfers', { token: key, rawBody: '{' });
  expect(broken.status).toBe(400);
  expect(broken.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/not valid JSON/) });
  const remaining = Number(broken.headers.get('x-ratelimit-remaining'));
  expect(broken.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(broken.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  const huge = await call(gw.url, 'POST', '/v1/transfers', { token: key, rawBody: JSON.stringify({ narration: 'x'.repeat(5000) }) });
  expect(huge.status).toBe(413);
  expect(huge.body.error.code).toBe('invalid_request');
  const after = Number(huge.headers.get('x-ratelimit-remaining'));
  // The same window (or, across its boundary, a new one with one request in it).
  expect(after === remaining - 1 || after === Number(huge.headers.get('x-ratelimit-limit')) - 1).toBe(true);
});

test('broken JSON is 400 invalid_request, not 5xx', async () => {
  const res = await call(gw.url, 'POST', '/auth/login', { rawBody: '{"email": "a@b.c", ' });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.message).toMatch(/not valid JSON/);
});

test('an oversized body is 413 in the envelope', async () => {
  const res = await call(gw.url, 'POST', '/auth/login', { body: { email: 'a@b.c', password: 'x'.repeat(5000) } });
  expect(res.status).toBe(413);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.request_id).toMatch(UUID);
});

test.each([
  ['an array body', '[1,2,3]'],
  ['a string body', '"hello"'],
  ['null', 'null'],
  ['wrong types', '{"email": 42, "password": ["x"]}'],
  ['missing fields', '{}'],
  ['injection strings', `{"email": "' OR 1=1; DROP TABLE \\"Workspace\\"; --", "password": "<script>alert(1)</script>"}`],
])('%s gets a 4xx envelope', async (_name, rawBody) => {
  const res = await call(gw.url, 'POST', '/auth/login', { rawBody });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(typeof res.body.error.code).toBe('string');
  expect(typeof res.body.error.message).toBe('string');
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|stack|prisma/i);
});

test('a missing field is named in the message', async () => {
  const res = await call(gw.url, 'POST', '/auth/login', { body: { email: 'a@b.c' } });
  expect(res.status).toBe(400);
  expect(res.body.error).toEqual({ code: 'invalid_request', message: 'password is required', details: { field: 'password' } });
});

test('a bad field is named in a message of the documented form, "<field> must …"', async () => {
  const { workspace } = await createWorkspaceWithKey(gw.env.db);
  const user = await createUserFor(gw.env.db, workspace.id);
  const session = (await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).body.data.token as string;
  for (const [res, field, message] of [
    [
      await call(gw.url, 'POST', '/webhook-endpoints', { token: session, body: { url: 'https://example.com/x', events: '*' } }),
      'events',
      'events must be an array',
    ],
    [
      await call(gw.url, 'POST', '/v1/withdrawals', { token: key, body: { currency: 'NGN', amount: 5, beneficiary_id: -1 } }),
      'beneficiary_id',
      'beneficiary_id must be greater than 0',
    ],
    [await call(gw.url, 'GET', '/v1/transactions?limit=0', { token: key }), 'limit', 'limit must be at least 1'],
    [await call(gw.url, 'GET', '/v1/transactions?limit=101', { token: key }), 'limit', 'limit must be at most 100'],
  ] as const) {
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: { code: 'invalid_request', message, details: { field } } });
  }
});

test('a non-JSON content type is treated as a missing body', async () => {
  const res = await call(gw.url, 'POST', '/auth/login', { rawBody: 'email=a', headers: { 'content-type': 'text/plain' } });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
});

test('healthz answers 200 and readyz reports Postgres and Redis', async () => {
  expect((await call(gw.url, 'GET', '/healthz')).status).toBe(200);
  const ready = await call(gw.url, 'GET', '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.data.checks).toEqual({ postgres: { ok: true }, redis: { ok: true } });
});

test('an empty query value counts as absent, as an empty Idempotency-Key does', async () => {
  const plain = await call(gw.url, 'GET', '/v1/transactions', { token: key });
  const empty = await call(gw.url, 'GET', '/v1/transactions?limit=&status=&cursor=&search=', { token: key });
  expect(empty.status).toBe(200);
  expect(empty.body.data).toEqual(plain.body.data);
});

// Risk: an Idempotency-Key request executing twice (sequentially or
// concurrently), a replay leaking the first request's id, a failure stored, or
// a key reused for a different body slipping through.
import type { Router } from 'express';
import { AppError } from '@cowrie/core';
import { createApiKey } from '@cowrie/accounts';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { apiKeyOf, sendData } from '../src/http/respond';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let key: string;
let executions = 0;

/** A probe route: counts executions, can be slow or fail on demand. */
function probeRoutes(v1: Router) {
  v1.post('/probe', async (req, res) => {
    executions += 1;
    const n = executions;
    if (req.body?.delay_ms) await new Promise((r) => setTimeout(r, Number(req.body.delay_ms)));
    if (req.body?.fail) throw new AppError('invalid_request', 'asked to fail');
    sendData(req, res, 201, { execution: n, workspace: apiKeyOf(req).workspaceId, echo: req.body });
  });
  v1.get('/probe', (req, res) => {
    executions += 1;
    sendData(req, res, 200, { execution: executions });
  });
}

beforeAll(async () => {
  gw = await startTestGateway({ IDEMPOTENCY_WAIT_MS: '3000' }, { extraV1Routes: probeRoutes });
  ({ key } = await createWorkspaceWithKey(gw.env.db));
});
afterAll(() => gw.close());
beforeEach(() => {
  executions = 0;
});

const post = (body: unknown, idemKey?: string, token = key, path = '/v1/probe') =>
  call(gw.url, 'POST', path, { token, body, headers: idemKey === undefined ? {} : { 'Idempotency-Key': idemKey } });

test('the same key and body replays the stored response with the current request_id', async () => {
  const first = await post({ a: 1, b: { y: 2, x: 1 } }, 'key-replay');
  const second = await post({ b: { x: 1, y: 2 }, a: 1 }, 'key-replay'); // same body, keys in another order
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);
  expect(second.body.data).toEqual(first.body.data);
  expect(second.body.meta.request_id).not.toBe(first.body.meta.request_id);
  expect(second.headers.get('x-request-id')).toBe(second.body.meta.request_id);
  expect(executions).toBe(1);
});

test('the same key with a different body is 409 idempotency_conflict', async () => {
  await post({ a: 1 }, 'key-conflict');
  const res = await post({ a: 2 }, 'key-conflict');
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('idempotency_conflict');
  expect(res.body.error.message).toMatch(/different request body/);
  expect(executions).toBe(1);
});

test('the same key on a different path is a conflict too', async () => {
  await post({ a: 1 }, 'key-path');
  const res = await post({ a: 1 }, 'key-path', key, '/v1/cards');
  expect(res.status).toBe(409);
});

test('keys are trimmed, and an empty key counts as absent', async () => {
  await post({ t: 1 }, '  key-trim  ');
  const res = await post({ t: 1 }, 'key-trim');
  expect(res.body.data.execution).toBe(1);
  await post({ t: 1 }, '   ');
  await post({ t: 1 }, '');
  expect(executions).toBe(3);
});

test('keys of 255 characters or more are refused; 254 is accepted', async () => {
  const tooLong = await post({}, 'k'.repeat(255));
  expect(tooLong.status).toBe(400);
  expect(tooLong.body.error.code).toBe('invalid_request');
  expect((await post({}, 'k'.repeat(254))).status).toBe(201);
});

test('without the header nothing is de-duplicated; GET ignores the header', async () => {
  await post({ same: true });
  await post({ same: true });
  await call(gw.url, 'GET', '/v1/probe', { token: key, headers: { 'Idempotency-Key': 'get-key' } });
  const get2 = await call(gw.url, 'GET', '/v1/probe', { token: key, headers: { 'Idempotency-Key': 'get-key' } });
  expect(get2.body.data.execution).toBe(4);
});

test('failed requests are not stored, so a retry runs', async () => {
  const failed = await post({ fail: true }, 'key-fail');
  expect(failed.status).toBe(400);
  const retried = await post({ fail: true }, 'key-fail');
  expect(retried.status).toBe(400);
  expect(executions).toBe(2);
  expect(await gw.env.db.idempotencyRecord.count({ where: { key: 'key-fail' } })).toBe(0);
});

test('keys are scoped per workspace', async () => {
  const other = await createWorkspaceWithKey(gw.env.db);
  const mine = await post({ w: 1 }, 'shared-key');
  const theirs = await post({ w: 1 }, 'shared-key', other.key);
  expect(theirs.status).toBe(201);
  expect(theirs.body.data.workspace).not.toBe(mine.body.data.workspace);
  expect(executions).toBe(2);
});

test('concurrent requests with one key execute once; the others replay it', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, () => post({ delay_ms: 300 }, 'key-concurrent')));
  expect(executions).toBe(1);
  expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
  expect(new Set(results.map((r) => r.body.data.execution))).toEqual(new Set([1]));
  expect(new Set(results.map((r) => r.body.meta.request_id)).size).toBe(8);
});

test('a request still in flight past the wait bound gets 409, and never runs twice', async () => {
  const slow = post({ delay_ms: 3800 }, 'key-slow');
  await new Promise((r) => setTimeout(r, 100));
  const second = await post({ delay_ms: 3800 }, 'key-slow');
  expect(second.status).toBe(409);
  expect(second.body.error.message).toMatch(/still in progress/);
  expect((await slow).status).toBe(201);
  expect(executions).toBe(1);
});

test('an expired record is deleted and the request runs fresh', async () => {
  await post({ e: 1 }, 'key-expired');
  await gw.env.db.idempotencyRecord.updateMany({ where: { key: 'key-expired' }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const res = await post({ e: 1 }, 'key-expired');
  expect(res.body.data.execution).toBe(2);
  const row = await gw.env.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'key-expired' } });
  expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
});

test('records are kept 24 hours from the first successful write', async () => {
  const before = Date.now();
  await post({ r: 1 }, 'key-retention');
  const row = await gw.env.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'key-retention' } });
  expect(row.state).toBe('completed');
  expect(row.expiresAt.getTime() - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
  expect(row.expiresAt.getTime() - before).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000);
});

test('a claim left by a dead request goes stale and can be taken over', async () => {
  const { claimIdempotencyKey, idempotencyRequestHash } = await import('@cowrie/api-limits');
  const workspaceId = (await gw.env.db.apiKey.findFirstOrThrow({ orderBy: { id: 'asc' } })).workspaceId;
  const hash = idempotencyRequestHash('POST', '/v1/probe', { d: 1 });
  const old = new Date(Date.now() - 10 * 60_000);
  expect((await claimIdempotencyKey(gw.env.db, { workspaceId, key: 'key-dead', requestHash: hash, now: old })).kind).toBe('claimed');
  const res = await post({ d: 1 }, 'key-dead');
  expect(res.status).toBe(201);
  expect(executions).toBe(1);
});

test('a stored answer is taken back once, by one of many concurrent callers, and never one stored after it', async () => {
  const { claimIdempotencyKey, completeIdempotencyKey, idempotencyRequestHash, reclaimIdempotencyKey } = await import('@cowrie/api-limits');
  const workspaceId = (await gw.env.db.apiKey.findFirstOrThrow({ orderBy: { id: 'asc' } })).workspaceId;
  const ref = { workspaceId, key: 'key-reclaim', requestHash: idempotencyRequestHash('POST', '/v1/probe', { r: 1 }) };
  expect((await claimIdempotencyKey(gw.env.db, ref)).kind).toBe('claimed');
  await completeIdempotencyKey(gw.env.db, { ...ref, status: 201, body: { data: 'first' } });
  const replay = await claimIdempotencyKey(gw.env.db, ref);
  if (replay.kind !== 'replay') throw new Error(`expected a replay, got ${replay.kind}`);
  const taken = await Promise.all(
    Array.from({ length: 8 }, () => reclaimIdempotencyKey(gw.env.db, { workspaceId, key: ref.key, claimedAt: replay.claimedAt })),
  );
  expect(taken.filter(Boolean)).toHaveLength(1);
  expect((await claimIdempotencyKey(gw.env.db, ref)).kind).toBe('in_flight');
  // The new claim's answer is stored: the replay read before it cannot take it back.
  await completeIdempotencyKey(gw.env.db, { ...ref, status: 201, body: { data: 'second' } });
  expect(await reclaimIdempotencyKey(gw.env.db, { workspaceId, key: ref.key, claimedAt: replay.claimedAt })).toBe(false);
  expect(await claimIdempotencyKey(gw.env.db, ref)).toMatchObject({ kind: 'replay', body: { data: 'second' } });
});

test('rate-limited requests are not stored', async () => {
  const limited = await startTestGateway({ PUBLIC_API_RATE_LIMIT: '1' }, { extraV1Routes: probeRoutes });
  try {
    const { key: k } = await createWorkspaceWithKey(limited.env.db);
    const intoWindow = (Date.now() / 1000) % 60;
    if (intoWindow > 58) await new Promise((r) => setTimeout(r, (60.2 - intoWindow) * 1000));
    await call(limited.url, 'GET', '/v1/channels', { token: k });
    const res = await call(limited.url, 'POST', '/v1/probe', { token: k, body: {}, headers: { 'Idempotency-Key': 'rl' } });
    expect(res.status).toBe(429);
    expect(await limited.env.db.idempotencyRecord.count()).toBe(0);
  } finally {
    await limited.close();
  }
});

test('a key without the route scope is refused before a replay: it never sees the stored answer of a key that had it', async () => {
  const { workspace, key: full } = await createWorkspaceWithKey(gw.env.db);
  const readOnly = (await createApiKey(gw.env.db, { workspaceId: workspace.id, scopes: ['read'] })).key;
  const body = { channel: 'collection_va', amount: 2500, reference: 'scoped-replay' };
  const first = await post(body, 'scoped-key', full, '/v1/deposits');
  expect(first.status).toBe(201);
  const replay = await post(body, 'scoped-key', readOnly, '/v1/deposits');
  expect(replay.status).toBe(403);
  expect(replay.body.error.code).toBe('insufficient_scope');
  expect(JSON.stringify(replay.body)).not.toContain(first.body.data.account.account_number);
  // The key with the scope still gets its replay.
  expect((await post(body, 'scoped-key', full, '/v1/deposits')).body.data).toEqual(first.body.data);
});

test('an answer of a route the registry does not know (it cannot say the answer holds no secret) is stored sealed, and replays as it was sent', async () => {
  const first = await post({ secret: 'an answer that might hold one' }, 'unknown-route-sealed');
  expect(first.status).toBe(201);
  const record = await gw.env.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'unknown-route-sealed' } });
  expect(Object.keys(record.responseBody as object)).toEqual(['sealed']);
  expect(JSON.stringify(record.responseBody)).not.toContain('an answer that might hold one');
  const replay = await post({ secret: 'an answer that might hold one' }, 'unknown-route-sealed');
  expect([replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('cache-control')]).toEqual([201, 'true', 'no-store']);
  expect(replay.body.data).toEqual(first.body.data);
  expect(executions).toBe(1);
});

test('a registered route known to answer no secret is stored as it is', async () => {
  const { key: k } = await createWorkspaceWithKey(gw.env.db);
  const body = { channel: 'collection_va', amount: 2500, reference: 'plain-record' };
  expect((await post(body, 'plain-record', k, '/v1/deposits')).status).toBe(201);
  const record = await gw.env.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'plain-record' } });
  expect(record.responseBody).toMatchObject({ data: { channel: 'collection_va', status: 'pending' } });
});

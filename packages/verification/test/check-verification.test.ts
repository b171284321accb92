// Risk: a code accepted after its attempts ran out or after it expired; two
// concurrent wrong guesses both counted as the last; an event missing or
// written without its state change.
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import type { SqlQueryable } from '@cowrie/db';
import { createTestEnv } from '@cowrie/ledger/testing';
import { checkVerification } from '../src/check-verification';
import { createVerification } from '../src/create-verification';

let env: TestEnv;
let workspaceId: number;
let otherWorkspaceId: number;
const CODE = '482913';

beforeAll(async () => {
  env = await createTestEnv({ VERIFY_MAX_ATTEMPTS: '3', VERIFY_CODE_TTL_SECONDS: '60' });
  workspaceId = (await createWorkspaceWithKey(env.db)).workspace.id;
  otherWorkspaceId = (await createWorkspaceWithKey(env.db, { name: 'Other' })).workspace.id;
});
afterAll(() => env.cleanup());

async function start(now = new Date(), channel: 'sms' | 'voice' | 'email' = 'sms') {
  const { verification } = await createVerification(env.sql, env.config, {
    mode: 'live',
    workspaceId,
    channel,
    destination: channel === 'email' ? 'ada@example.com' : '+2348012345678',
    code: CODE,
    now,
  });
  return verification;
}
const check = (reference: string, code: string, now?: Date, ws = workspaceId) => checkVerification({ sql: env.sql }, { workspaceId: ws, reference, code, now });
const row = (reference: string) => env.db.verification.findUniqueOrThrow({ where: { reference } });
const events = (reference: string) => env.db.outboxEvent.findMany({ where: { payload: { path: ['reference'], equals: reference } }, orderBy: { id: 'asc' } });

test('only the salted hash is stored, never the code', async () => {
  const v = await start();
  const stored = JSON.stringify(await row(v.reference));
  expect(stored).not.toContain(CODE);
  expect(v.codeHash).toMatch(/^[0-9a-f]{64}$/);
  expect(v.status).toBe('pending');
  expect(v.maxAttempts).toBe(3);
});

test('pending + correct code → verified, attempt counted, one verification.verified event', async () => {
  const v = await start();
  expect(await check(v.reference, CODE)).toEqual({ status: 'verified' });
  const after = await row(v.reference);
  expect(after).toMatchObject({ status: 'verified', attempts: 1 });
  expect(after.verifiedAt).toBeInstanceOf(Date);
  const evs = await events(v.reference);
  expect(evs.map((e) => e.event)).toEqual(['verification.verified']);
  expect(evs[0]!.workspaceId).toBe(workspaceId);
  expect(evs[0]!.payload).toEqual({
    reference: v.reference,
    channel: 'sms',
    destination: '+234801****678',
    status: 'verified',
    attempts: 1,
    verified_at: after.verifiedAt!.toISOString(),
  });
});

test('verified + any code → verified again, nothing changes', async () => {
  const v = await start();
  await check(v.reference, CODE);
  expect(await check(v.reference, '000000')).toEqual({ status: 'verified' });
  expect(await check(v.reference, CODE)).toEqual({ status: 'verified' });
  expect((await row(v.reference)).attempts).toBe(1);
  expect(await events(v.reference)).toHaveLength(1);
});

test('pending + wrong code with attempts left → pending, counter up, attempts_remaining reported', async () => {
  const v = await start();
  expect(await check(v.reference, '111111')).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 2 });
  expect(await row(v.reference)).toMatchObject({ status: 'pending', attempts: 1 });
  expect(await check(v.reference, '222222')).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 1 });
  expect(await row(v.reference)).toMatchObject({ status: 'pending', attempts: 2 });
  expect(await events(v.reference)).toHaveLength(0);
});

test('the last allowed wrong code → failed, attempts_remaining 0, one verification.failed (invalid_code)', async () => {
  const v = await start();
  await check(v.reference, '111111');
  await check(v.reference, '222222');
  expect(await check(v.reference, '333333')).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 0 });
  expect(await row(v.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  const evs = await events(v.reference);
  expect(evs.map((e) => e.event)).toEqual(['verification.failed']);
  expect(evs[0]!.payload).toMatchObject({ reference: v.reference, status: 'failed', attempts: 3, reason: 'invalid_code', verified_at: null });
});

test('failed + any code (even the right one) → reason failed, counter unchanged', async () => {
  const v = await start();
  for (const c of ['1', '2', '3']) await check(v.reference, c);
  expect(await check(v.reference, CODE)).toEqual({ status: 'failed', reason: 'failed' });
  expect(await row(v.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  expect(await events(v.reference)).toHaveLength(1);
});

test('a correct code after a wrong one still verifies within the attempts', async () => {
  const v = await start();
  await check(v.reference, '111111');
  await check(v.reference, '222222');
  expect(await check(v.reference, CODE)).toEqual({ status: 'verified' });
  expect(await row(v.reference)).toMatchObject({ status: 'verified', attempts: 3 });
});

test('pending past the TTL + check (even the right code) → expired, one verification.expired; later checks say expired', async () => {
  const created = new Date(Date.now() - 61_000);
  const v = await start(created);
  expect(await check(v.reference, CODE)).toEqual({ status: 'failed', reason: 'expired' });
  expect(await row(v.reference)).toMatchObject({ status: 'expired', attempts: 0, verifiedAt: null });
  expect(await check(v.reference, CODE)).toEqual({ status: 'failed', reason: 'expired' });
  const evs = await events(v.reference);
  expect(evs.map((e) => e.event)).toEqual(['verification.expired']);
  expect(evs[0]!.payload).toMatchObject({ reference: v.reference, status: 'expired', channel: 'sms', destination: '+234801****678' });
});

test('the TTL boundary: one millisecond before expiry verifies, at expiry expires', async () => {
  const created = new Date();
  const a = await start(created);
  const b = await start(created);
  const expiry = created.getTime() + 60_000;
  expect(await check(a.reference, CODE, new Date(expiry - 1))).toEqual({ status: 'verified' });
  expect(await check(b.reference, CODE, new Date(expiry))).toEqual({ status: 'failed', reason: 'expired' });
});

test('defensive row: counter at the maximum but still pending → too_many_attempts, row failed, event', async () => {
  const v = await start();
  await env.db.verification.update({ where: { id: v.id }, data: { attempts: 3 } });
  expect(await check(v.reference, CODE)).toEqual({ status: 'failed', reason: 'too_many_attempts' });
  expect(await row(v.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  const evs = await events(v.reference);
  expect(evs.map((e) => e.event)).toEqual(['verification.failed']);
  expect(evs[0]!.payload).toMatchObject({ reason: 'too_many_attempts' });
});

test('unknown, malformed and other-workspace references → not_found, nothing changes', async () => {
  const v = await start();
  expect(await check('6f1c1f7e-3a37-4d55-9b0e-1f2a3b4c5d6e', CODE)).toEqual({ status: 'failed', reason: 'not_found' });
  expect(await check('not-a-uuid', CODE)).toEqual({ status: 'failed', reason: 'not_found' });
  expect(await check("' OR 1=1 --", CODE)).toEqual({ status: 'failed', reason: 'not_found' });
  expect(await check(v.reference, CODE, undefined, otherWorkspaceId)).toEqual({ status: 'failed', reason: 'not_found' });
  expect(await row(v.reference)).toMatchObject({ status: 'pending', attempts: 0 });
});

test('references are matched case-insensitively (a UUID in capitals is the same UUID)', async () => {
  const v = await start();
  expect(await check(v.reference.toUpperCase(), CODE)).toEqual({ status: 'verified' });
});

test('20 concurrent wrong guesses: exactly 3 counted, exactly one is the last, one failed event', async () => {
  const v = await start();
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => check(v.reference, String(100000 + i))));
  const invalid = results.filter((r) => r.status === 'failed' && r.reason === 'invalid_code');
  expect(invalid).toHaveLength(3);
  expect(invalid.map((r) => (r as { attempts_remaining: number }).attempts_remaining).sort()).toEqual([0, 1, 2]);
  expect(results.filter((r) => r.status === 'failed' && r.reason === 'failed')).toHaveLength(17);
  expect(await row(v.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  expect(await events(v.reference)).toHaveLength(1);
});

test('a wrong guess read as not the last, made the last by a guess counted in between: the row fails with its one verification.failed event', async () => {
  const v = await start();
  await check(v.reference, '100001');
  // Between this check's read (attempts 1 of 3: its guess not the last) and its change, another wrong guess is counted.
  let raced = false;
  const sql: SqlQueryable = env.sql;
  const racing: SqlQueryable = {
    async query<R>(config: Parameters<SqlQueryable['query']>[0]) {
      if (config.name === 'cowrie-verification-code-transition' && !raced) {
        raced = true;
        expect(await check(v.reference, '100002')).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 1 });
      }
      return sql.query<R>(config);
    },
  };
  expect(await checkVerification({ sql: racing }, { workspaceId, reference: v.reference, code: '100003' })).toEqual({
    status: 'failed',
    reason: 'invalid_code',
    attempts_remaining: 0,
  });
  expect(raced).toBe(true);
  expect(await row(v.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  const evs = await events(v.reference);
  expect(evs.map((e) => [e.event, (e.payload as { reason: string; attempts: number }).reason, (e.payload as { attempts: number }).attempts])).toEqual([
    ['verification.failed', 'invalid_code', 3],
  ]);
});

test('a correct code racing the last wrong guess: never both the last wrong guess and verified', async () => {
  for (let round = 0; round < 8; round += 1) {
    const v = await start();
    await check(v.reference, '111111');
    await check(v.reference, '222222');
    const [wrong, right] = await Promise.all([check(v.reference, '333333'), check(v.reference, CODE)]);
    const final = await row(v.reference);
    expect(final.attempts).toBe(3);
    if (right.status === 'verified') {
      expect(final.status).toBe('verified');
      expect(wrong).toEqual({ status: 'verified' });
    } else {
      expect(final.status).toBe('failed');
      expect(wrong).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 0 });
      expect(right).toEqual({ status: 'failed', reason: 'failed' });
    }
    expect(await events(v.reference)).toHaveLength(1);
  }
});

test('concurrent correct codes: all answer verified, counted once each at most, one event', async () => {
  const v = await start();
  const results = await Promise.all(Array.from({ length: 10 }, () => check(v.reference, CODE)));
  expect(results.every((r) => r.status === 'verified')).toBe(true);
  expect(await row(v.reference)).toMatchObject({ status: 'verified', attempts: 1 });
  expect(await events(v.reference)).toHaveLength(1);
});

test('checks of different rows arriving together are each judged on their own row', async () => {
  const [right, wrong, last, foreign, twice] = await Promise.all([start(), start(), start(), start(), start()]);
  for (const c of ['111111', '222222']) await check(last!.reference, c);
  const outcomes = await Promise.all([
    check(right!.reference, CODE),
    check(wrong!.reference, '111111'),
    check(last!.reference, '333333'),
    check(foreign!.reference, CODE, undefined, otherWorkspaceId),
    check(twice!.reference, '111111'),
    check(twice!.reference, CODE),
  ]);
  expect(outcomes).toEqual([
    { status: 'verified' },
    { status: 'failed', reason: 'invalid_code', attempts_remaining: 2 },
    { status: 'failed', reason: 'invalid_code', attempts_remaining: 0 },
    { status: 'failed', reason: 'not_found' },
    { status: 'failed', reason: 'invalid_code', attempts_remaining: 2 },
    { status: 'verified' },
  ]);
  expect(await row(right!.reference)).toMatchObject({ status: 'verified', attempts: 1 });
  expect(await row(wrong!.reference)).toMatchObject({ status: 'pending', attempts: 1 });
  expect(await row(last!.reference)).toMatchObject({ status: 'failed', attempts: 3 });
  expect(await row(foreign!.reference)).toMatchObject({ status: 'pending', attempts: 0 });
  expect(await row(twice!.reference)).toMatchObject({ status: 'verified', attempts: 2 });
  expect((await events(right!.reference)).map((e) => [e.event, (e.payload as { attempts: number }).attempts])).toEqual([['verification.verified', 1]]);
  expect(await events(wrong!.reference)).toHaveLength(0);
  expect((await events(last!.reference)).map((e) => [e.event, (e.payload as { reason: string }).reason])).toEqual([['verification.failed', 'invalid_code']]);
  expect(await events(foreign!.reference)).toHaveLength(0);
  expect((await events(twice!.reference)).map((e) => [e.event, (e.payload as { attempts: number }).attempts])).toEqual([['verification.verified', 2]]);
});

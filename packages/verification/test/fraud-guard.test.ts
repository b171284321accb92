// Risk: the SMS-pumping guard blocking a prefix too early or never, blocking
// in monitor mode, counting what it refused, never lifting (as the hour slides,
// as checks verify, when cleared), or leaking one workspace's or prefix's
// counts into another's.
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import {
  clearGuardedPrefix,
  destinationPrefix,
  guardAndLimitVerificationStart,
  guardReportLimiter,
  guardVerificationStart,
  listGuardedPrefixes,
  parseGuardPrefix,
  recordGuardedVerification,
  type FraudGuardConfig,
} from '../src/fraud-guard';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const T0 = Date.UTC(2026, 10, 27, 10, 0, 30);
const MINUTE = 60_000;
let workspace = 0;
const newWorkspace = () => `fg-${++workspace}-${Date.now().toString(36)}`;
const config = (mode: FraudGuardConfig['VERIFY_FRAUD_GUARD'], minStarts = 5, minConversion = 0.2): FraudGuardConfig => ({
  REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX,
  VERIFY_FRAUD_GUARD: mode,
  VERIFY_FRAUD_GUARD_MIN_STARTS: minStarts,
  VERIFY_FRAUD_GUARD_MIN_CONVERSION: minConversion,
});
const start = (c: FraudGuardConfig, workspaceUid: string, destination: string, now: number, channel: 'sms' | 'voice' | 'email' | 'whatsapp' = 'sms') =>
  guardVerificationStart(env.redis, c, { workspaceUid, channel, destination, now });
const startMany = async (c: FraudGuardConfig, ws: string, n: number, now: number, base = 2348031000000) => {
  for (let i = 0; i < n; i += 1) await start(c, ws, `+${base + i}`, now);
};

test('the prefix is the country code and four national digits', () => {
  expect(destinationPrefix('+2348031234567')).toBe('+234803 1');
  expect(destinationPrefix('ada@example.com')).toBeNull();
  expect(parseGuardPrefix('+2348031')).toBe('+234803 1');
  expect(parseGuardPrefix('+234803 1')).toBe('+234803 1');
  expect(parseGuardPrefix('+23480')).toBeNull();
});

test('block: at min starts with conversion below the minimum, the next start to that prefix is refused; another prefix and workspace are not', async () => {
  const c = config('block');
  const ws = newWorkspace();
  await startMany(c, ws, 5, T0);
  const refused = await start(c, ws, '+2348031999999', T0);
  expect(refused).toEqual({ kind: 'refused', prefix: '+234803 1', retryAfterSeconds: 3600 - 30 });
  // Refused starts are not counted.
  expect((await listGuardedPrefixes(env.redis, c, ws, T0))[0]).toMatchObject({ prefix: '+234803 1', starts: 5, verified: 0, blocking: true });
  expect((await start(c, ws, '+2348032000000', T0)).kind).toBe('counted');
  expect((await start(c, newWorkspace(), '+2348031999999', T0)).kind).toBe('counted');
});

test('email and whatsapp are neither counted nor refused', async () => {
  const c = config('block', 1);
  const ws = newWorkspace();
  expect(await start(c, ws, '+2348031000000', T0, 'whatsapp')).toEqual({ kind: 'not_guarded' });
  expect(await start(c, ws, 'a@example.com', T0, 'email')).toEqual({ kind: 'not_guarded' });
  await start(c, ws, '+2348031000000', T0, 'voice');
  expect((await start(c, ws, '+2348031000001', T0, 'voice')).kind).toBe('refused');
  expect(await start(c, ws, '+2348031000001', T0, 'whatsapp')).toEqual({ kind: 'not_guarded' });
});

test('monitor counts and reports a blocking prefix but refuses nothing; off counts nothing', async () => {
  const ws = newWorkspace();
  await startMany(config('monitor'), ws, 5, T0);
  const sixth = await start(config('monitor'), ws, '+2348031999999', T0);
  expect(sixth).toMatchObject({ kind: 'counted', blocking: true });
  expect((await listGuardedPrefixes(env.redis, config('monitor'), ws, T0))[0]!.starts).toBe(6);
  const off = newWorkspace();
  expect(await start(config('off'), off, '+2348031999999', T0)).toEqual({ kind: 'not_guarded' });
  expect(await listGuardedPrefixes(env.redis, config('off'), off, T0)).toEqual([]);
});

test('verified checks count toward lifting it: conversion at the minimum unblocks', async () => {
  const c = config('block', 5, 0.3);
  const ws = newWorkspace();
  await startMany(c, ws, 5, T0);
  expect((await start(c, ws, '+2348031999999', T0)).kind).toBe('refused');
  await recordGuardedVerification(env.redis, c, { workspaceUid: ws, channel: 'sms', destination: '+2348031000000', now: T0 + MINUTE });
  expect((await start(c, ws, '+2348031999999', T0 + MINUTE)).kind).toBe('refused');
  await recordGuardedVerification(env.redis, c, { workspaceUid: ws, channel: 'voice', destination: '+2348031000001', now: T0 + MINUTE });
  // 2 verified of 5 started = 0.4, not below the minimum.
  expect((await start(c, ws, '+2348031999999', T0 + MINUTE)).kind).toBe('counted');
  // An email check never counts toward a phone prefix.
  await recordGuardedVerification(env.redis, c, { workspaceUid: ws, channel: 'email', destination: 'x@example.com', now: T0 });
});

test('the hour slides: a block lifts when its oldest starts leave the window, as retry_after_seconds said', async () => {
  const c = config('block');
  const ws = newWorkspace();
  await startMany(c, ws, 3, T0);
  await startMany(c, ws, 2, T0 + 10 * MINUTE, 2348031500000);
  const refused = await start(c, ws, '+2348031999999', T0 + 20 * MINUTE);
  // The first three leave at T0's minute + 60; then 2 starts are fewer than the minimum.
  expect(refused).toEqual({ kind: 'refused', prefix: '+234803 1', retryAfterSeconds: 40 * 60 - 30 });
  const lifted = T0 + 20 * MINUTE + (40 * 60 - 30) * 1000;
  expect((await start(c, ws, '+2348031999999', lifted - 1000)).kind).toBe('refused');
  expect((await start(c, ws, '+2348031999999', lifted)).kind).toBe('counted');
});

test('release takes a start back (another limit refused it)', async () => {
  const c = config('block', 2);
  const ws = newWorkspace();
  const first = await start(c, ws, '+2348031000000', T0);
  if (first.kind !== 'counted') throw new Error('expected counted');
  await first.release();
  await start(c, ws, '+2348031000001', T0);
  expect((await start(c, ws, '+2348031000002', T0)).kind).toBe('counted');
  expect((await start(c, ws, '+2348031000003', T0)).kind).toBe('refused');
});

test('the guard and the limits in one command: the outcomes of the guard, the limits and the release called apart', async () => {
  const c = { ...config('block', 3), VERIFY_RATE_DEST_LIMIT: 2, VERIFY_RATE_BIZ_LIMIT: 100, VERIFY_RATE_WINDOW_SECONDS: 3600 };
  const ws = newWorkspace();
  const admit = (destination: string, channel: 'sms' | 'email' = 'sms') =>
    guardAndLimitVerificationStart(env.redis, c, { workspaceUid: ws, channel, destination, now: T0 });
  const starts = async () => (await listGuardedPrefixes(env.redis, c, ws, T0)).find((p) => p.prefix === '+234803 1')?.starts ?? 0;
  expect(await admit('+2348031000000')).toEqual({ kind: 'judged', guarded: { prefix: '+234803 1', blocking: false }, limit: { kind: 'allowed' } });
  expect(await admit('+2348031000000')).toMatchObject({ kind: 'judged', limit: { kind: 'allowed' } });
  // The destination's limit refuses the third: the guard's count of it is taken back in the same step.
  expect(await admit('+2348031000000')).toMatchObject({ kind: 'judged', limit: { kind: 'refused', reason: 'destination' } });
  expect(await starts()).toBe(2);
  expect(await admit('+2348031000001')).toMatchObject({ kind: 'judged', limit: { kind: 'allowed' } });
  // Three starts without a verified check: the guard (block) refuses the next ones, which no limit counts.
  expect(await admit('+2348031000001')).toEqual({ kind: 'guard_refused', prefix: '+234803 1', retryAfterSeconds: expect.any(Number) });
  expect(await admit('+2348031000001')).toMatchObject({ kind: 'guard_refused' });
  expect(await starts()).toBe(3);
  // A channel the guard does not look at meets the limits alone: the destination has one start counted, not three.
  expect(await admit('+2348031000001', 'email')).toEqual({ kind: 'judged', guarded: null, limit: { kind: 'allowed' } });
  expect(await admit('+2348031000001', 'email')).toMatchObject({ kind: 'judged', guarded: null, limit: { kind: 'refused', reason: 'destination' } });
});

test('clearing a prefix drops its counts: it is judged again from its next starts', async () => {
  const c = config('block');
  const ws = newWorkspace();
  await startMany(c, ws, 5, T0);
  await startMany(c, ws, 2, T0, 2348070000000);
  const held = await clearGuardedPrefix(env.redis, c, { workspaceUid: ws, prefix: '+234803 1', now: T0 });
  expect(held).toMatchObject({ prefix: '+234803 1', starts: 5, blocking: true });
  expect((await start(c, ws, '+2348031999999', T0)).kind).toBe('counted');
  expect((await listGuardedPrefixes(env.redis, c, ws, T0)).map((p) => [p.prefix, p.starts])).toEqual([
    ['+234807 0', 2],
    ['+234803 1', 1],
  ]);
  expect(await clearGuardedPrefix(env.redis, c, { workspaceUid: ws, prefix: '+234809 9', now: T0 })).toBeNull();
});

test('no phone number reaches Redis key names', async () => {
  const ws = newWorkspace();
  await start(config('block'), ws, '+2348031234567', T0);
  const keys = await env.redis.keys(`${env.config.REDIS_KEY_PREFIX}verify:fg:*`);
  expect(keys.length).toBeGreaterThan(0);
  for (const key of keys) expect(key).not.toContain('1234567');
});

test('monitor mode logs a blocking prefix once a window per workspace and prefix, with the starts it did not log', () => {
  const due = guardReportLimiter(MINUTE);
  expect(due('ws-a', '+234803 1', T0)).toEqual({ report: true, unreported: 0 });
  expect(due('ws-a', '+234803 1', T0 + 1_000)).toEqual({ report: false });
  expect(due('ws-a', '+234803 1', T0 + MINUTE - 1)).toEqual({ report: false });
  // Another prefix, another workspace: their own windows.
  expect(due('ws-a', '+234805 5', T0 + 2_000)).toEqual({ report: true, unreported: 0 });
  expect(due('ws-b', '+234803 1', T0 + 2_000)).toEqual({ report: true, unreported: 0 });
  expect(due('ws-a', '+234803 1', T0 + MINUTE)).toEqual({ report: true, unreported: 2 });
  expect(due('ws-a', '+234803 1', T0 + MINUTE + 1)).toEqual({ report: false });
});

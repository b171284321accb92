// Risk: SMS pumping going on unchecked in block mode (many starts to one
// prefix, none verified), or the guard refusing in monitor mode, refusing
// another prefix, email or WhatsApp; a refused start sending a code, being
// counted toward the other limits or stored by the idempotency layer; a
// verified check or an owner's clear not lifting a block, or an admin's or a
// member's clear lifting it; the metrics and the dashboard not showing it.
import { parseMetrics, sampleValue } from '@cowrie/metrics';
import { createUserFor } from '@cowrie/testing';
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

const METRICS_TOKEN = 'metrics-token-for-guard-tests-0123456789';

describe('block', () => {
  let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
  beforeAll(async () => {
    gw = await startVerificationGateway({
      VERIFY_FRAUD_GUARD: 'block',
      VERIFY_FRAUD_GUARD_MIN_STARTS: '6',
      VERIFY_FRAUD_GUARD_MIN_CONVERSION: '0.2',
      VERIFY_RATE_BIZ_LIMIT: '12',
      VERIFY_RATE_WINDOW_SECONDS: '86400',
      METRICS_TOKEN,
    });
  });
  afterAll(() => gw.close());
  const start = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(gw.url, 'POST', '/v1/verifications', { token: key, body, headers });

  test('a pumping run blocks its prefix and not another; email and whatsapp pass; a refusal sends nothing and counts nowhere; an owner clears it', async () => {
    const { apiKey: key, token: session } = await signInNewWorkspace(gw, 'pumped');
    // Six starts to +234803 1…, no checks: conversion 0 at the minimum starts.
    for (let i = 0; i < 6; i += 1) {
      expect((await start(key, { channel: i % 2 ? 'voice' : 'sms', destination: `+23480310000${10 + i}` })).status).toBe(201);
    }
    const rows = await gw.env.db.verification.count();
    const refused = await start(key, { channel: 'sms', destination: '+2348031999999' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.details).toMatchObject({ reason: 'fraud_guard', prefix: '+234803 1' });
    expect(refused.body.error.details.retry_after_seconds).toBeGreaterThan(3500);
    expect(refused.body.error.details.retry_after_seconds).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.error.details.retry_after_seconds));
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await start(key, { channel: 'voice', destination: '+2348031999998' })).body.error.details.reason).toBe('fraud_guard');
    expect(await gw.env.db.verification.count()).toBe(rows);
    expect(await gw.sandboxMessages('+2348031999999')).toEqual([]);

    // Another prefix of the same workspace, and email and WhatsApp to the blocked one, still pass.
    expect((await start(key, { channel: 'sms', destination: '+2348032000001' })).status).toBe(201);
    expect((await start(key, { channel: 'whatsapp', destination: '+2348031999999' })).status).toBe(201);
    expect((await start(key, { channel: 'email', destination: 'pumped@example.com' })).status).toBe(201);
    // Nine starts went through; the refused ones did not count toward the business limit (12): three more pass.
    for (const d of ['+2348033000001', '+2348033000002', '+2348033000003']) expect((await start(key, { channel: 'sms', destination: d })).status).toBe(201);
    expect((await start(key, { channel: 'sms', destination: '+2348033000004' })).body.error.details.reason).toBe('business');

    const guard = await call(gw.url, 'GET', '/verification-guard', { token: session });
    expect(guard.status).toBe(200);
    expect(guard.body.data).toMatchObject({ mode: 'block', min_starts: 6, min_conversion: 0.2 });
    expect(guard.body.data.prefixes[0]).toMatchObject({ prefix: '+234803 1', starts: 6, verified: 0, conversion: 0, blocking: true });
    expect(guard.body.data.prefixes.find((p: { prefix: string }) => p.prefix === '+234803 2')).toMatchObject({ starts: 1, blocking: false });
    expect(guard.body.data.conversion_by_channel).toContainEqual({ channel: 'whatsapp', started: 1, verified: 0, conversion: 0 });

    const metrics = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    const conversion = (labels: Record<string, string>) => sampleValue(metrics, 'cowrie_verification_conversion_total', labels);
    expect(conversion({ channel: 'sms', prefix: '+234803 1', outcome: 'started' })).toBe(3);
    expect(conversion({ channel: 'voice', prefix: '+234803 1', outcome: 'started' })).toBe(3);
    expect(conversion({ channel: 'sms', prefix: '+234803 1', outcome: 'refused' })).toBe(1);
    expect(conversion({ channel: 'voice', prefix: '+234803 1', outcome: 'refused' })).toBe(1);

    // An owner clears it, and the audit trail says so.
    const cleared = await call(gw.url, 'POST', '/verification-guard/clear', { token: session, body: { prefix: '+2348031' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ prefix: '+234803 1', starts: 6, blocking: true });
    const audit = await call(gw.url, 'GET', '/audit-events?action=verification.guard_cleared', { token: session });
    expect(audit.body.data[0]).toMatchObject({
      action: 'verification.guard_cleared',
      details: { prefix: '+234803 1', starts: 6, verified: 0, blocking: true },
    });
  });

  test('verified checks to the prefix lift the block', async () => {
    const { apiKey: key } = await signInNewWorkspace(gw, 'converting');
    const references: string[] = [];
    for (let i = 0; i < 6; i += 1) references.push((await start(key, { channel: 'sms', destination: `+23480710000${10 + i}` })).body.data.reference);
    expect((await start(key, { channel: 'sms', destination: '+2348071999999' })).status).toBe(429);
    // One verified of six (0.17) is still below 0.2; two (0.33) lift it.
    for (const [i, reference] of references.slice(0, 2).entries()) {
      const [message] = await gw.sandboxMessages(`+23480710000${10 + i}`);
      const check = await call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code: message!.code } });
      expect(check.body.data).toEqual({ status: 'verified' });
      // Checking a verified one again does not count twice.
      await call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code: message!.code } });
      expect((await start(key, { channel: 'sms', destination: '+2348071999999' })).status).toBe(i === 0 ? 429 : 201);
    }
    const metrics = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    expect(sampleValue(metrics, 'cowrie_verification_conversion_total', { channel: 'sms', prefix: '+234807 1', outcome: 'verified' })).toBe(2);
  });

  test('an idempotency key of a refused start is not stored: after the block lifts, the same request runs', async () => {
    const { apiKey: key, token: session } = await signInNewWorkspace(gw, 'idempotent');
    for (let i = 0; i < 6; i += 1) await start(key, { channel: 'sms', destination: `+23480910000${10 + i}` });
    const body = { channel: 'sms', destination: '+2348091999999' };
    expect((await start(key, body, { 'Idempotency-Key': 'guarded-1' })).status).toBe(429);
    expect((await call(gw.url, 'POST', '/verification-guard/clear', { token: session, body: { prefix: '+234809 1' } })).status).toBe(200);
    const retried = await start(key, body, { 'Idempotency-Key': 'guarded-1' });
    expect(retried.status).toBe(201);
  });

  test("only an owner clears a prefix: an admin's or a member's clear is 403 and the block stays", async () => {
    const { workspaceId, apiKey: key, token: owner } = await signInNewWorkspace(gw, 'roles');
    for (let i = 0; i < 6; i += 1) await start(key, { channel: 'sms', destination: `+23480810000${10 + i}` });
    expect((await start(key, { channel: 'sms', destination: '+2348081999999' })).body.error.details.reason).toBe('fraud_guard');
    for (const role of ['admin', 'member'] as const) {
      const user = await createUserFor(gw.env.db, workspaceId, `${role}-${workspaceId}@example.com`);
      await gw.env.db.dashboardUser.update({ where: { id: user.id }, data: { role } });
      const session = (await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).body.data.token as string;
      // The same user reads the guard: the 403 is the role's, not the session's.
      expect((await call(gw.url, 'GET', '/verification-guard', { token: session })).status).toBe(200);
      const denied = await call(gw.url, 'POST', '/verification-guard/clear', { token: session, body: { prefix: '+234808 1' } });
      expect({ role, status: denied.status, error: denied.body.error }).toEqual({
        role,
        status: 403,
        error: { code: 'insufficient_scope', message: 'Only an owner of this workspace can do this', details: { required_role: 'owner' } },
      });
      expect((await start(key, { channel: 'sms', destination: '+2348081999999' })).body.error.details.reason).toBe('fraud_guard');
    }
    const audit = await call(gw.url, 'GET', '/audit-events?action=verification.guard_cleared', { token: owner });
    expect(audit.body.data).toEqual([]);
    expect((await call(gw.url, 'POST', '/verification-guard/clear', { token: owner, body: { prefix: '+234808 1' } })).status).toBe(200);
    expect((await start(key, { channel: 'sms', destination: '+2348081999999' })).status).toBe(201);
  });

  test('clearing: a malformed prefix is 400, one the guard does not hold is 404', async () => {
    const { token: session } = await signInNewWorkspace(gw, 'clearing');
    const bad = await call(gw.url, 'POST', '/verification-guard/clear', { token: session, body: { prefix: '0803' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('prefix');
    expect((await call(gw.url, 'POST', '/verification-guard/clear', { token: session, body: { prefix: '+234805 5' } })).status).toBe(404);
  });
});

describe('monitor (the default)', () => {
  let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
  beforeAll(async () => {
    gw = await startVerificationGateway({ VERIFY_FRAUD_GUARD_MIN_STARTS: '3', VERIFY_RATE_WINDOW_SECONDS: '86400', METRICS_TOKEN });
  });
  afterAll(() => gw.close());

  test('the same pumping run is counted and logged, never refused', async () => {
    const { apiKey: key } = await signInNewWorkspace(gw, 'monitored');
    for (let i = 0; i < 6; i += 1) {
      expect((await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination: `+23480310000${10 + i}` } })).status).toBe(
        201,
      );
    }
    const metrics = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    expect(sampleValue(metrics, 'cowrie_verification_conversion_total', { channel: 'sms', prefix: '+234803 1', outcome: 'would_refuse' })).toBe(3);
    expect(sampleValue(metrics, 'cowrie_verification_conversion_total', { channel: 'sms', prefix: '+234803 1', outcome: 'refused' })).toBeUndefined();
    // Logged once a minute per prefix, not per start: the metric above counts every one.
    expect(gw.env.logLines.filter((l) => l.includes('fraud guard: prefix has low conversion'))).toHaveLength(1);
  });
});

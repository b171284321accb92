// Risk: the verification endpoints drifting from the API contract (shapes, codes,
// statuses), a code or its hash leaking into a response or a log, a failed
// delivery answered as a success, bad input reaching a provider.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { readVoiceCode, voiceCodeTtl } from '@cowrie/verification';
import { call } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let key: string;
let workspaceId: number;
let otherKey: string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Every response body seen, searched for secrets at the end. */
const bodies: string[] = [];

beforeAll(async () => {
  gw = await startVerificationGateway({ VERIFY_MAX_ATTEMPTS: '3', VERIFY_CODE_TTL_SECONDS: '120', VERIFY_RATE_BIZ_LIMIT: '1000' });
  const ws = await createWorkspaceWithKey(gw.env.db);
  key = ws.key;
  workspaceId = ws.workspace.id;
  otherKey = (await createWorkspaceWithKey(gw.env.db, { name: 'Other' })).key;
});
afterAll(() => gw.close());

async function api(method: string, path: string, body?: unknown, token = key) {
  const res = await call(gw.url, method, path, { token, body });
  bodies.push(JSON.stringify(res.body));
  return res;
}
const start = (body: Record<string, unknown>, token = key) => api('POST', '/v1/verifications', body, token);
const check = (reference: string, body: unknown, token = key) => api('POST', `/v1/verifications/${reference}/check`, body, token);
const read = (reference: string, token = key) => api('GET', `/v1/verifications/${reference}`, undefined, token);
async function codeFor(destination: string, reference: string): Promise<string> {
  const message = (await gw.sandboxMessages(destination)).find((m) => m.reference === reference);
  if (!message) throw new Error(`no sandbox message for ${reference}`);
  return message.code;
}

describe('start', () => {
  test('email: 201 with exactly reference, channel, masked destination, expiresAt, status pending', async () => {
    const before = Date.now();
    const res = await start({ channel: 'email', destination: 'Ada.Lovelace@Example.com' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(['channel', 'destination', 'expiresAt', 'reference', 'status']);
    expect(res.body.data).toMatchObject({ channel: 'email', destination: 'a**********e@example.com', status: 'pending' });
    expect(res.body.data.reference).toMatch(UUID);
    expect(res.body.data.expiresAt).toMatch(ISO);
    const expires = Date.parse(res.body.data.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 120_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 120_000 + 1000);
    expect(res.body.meta.request_id).toMatch(UUID);
    // Lowercased before delivery; a generated code has 4 digits.
    expect(await codeFor('ada.lovelace@example.com', res.body.data.reference)).toMatch(/^\d{4}$/);
  });

  test('sms: a Nigerian number in national format is normalised to E.164 and masked', async () => {
    const res = await start({ channel: 'sms', destination: '0801 234 5678' });
    expect(res.status).toBe(201);
    expect(res.body.data.destination).toBe('+234801****678');
    const row = await gw.env.db.verification.findUniqueOrThrow({ where: { reference: res.body.data.reference } });
    expect(row.destination).toBe('+2348012345678');
    expect(await codeFor('+2348012345678', res.body.data.reference)).toMatch(/^\d{4}$/);
  });

  test('an operator-supplied code is the one delivered and checked', async () => {
    const res = await start({ channel: 'sms', destination: '+2348033333333', code: '90817263' });
    expect(res.status).toBe(201);
    expect(await codeFor('+2348033333333', res.body.data.reference)).toBe('90817263');
    expect((await check(res.body.data.reference, { code: '90817263' })).body.data).toEqual({ status: 'verified' });
  });

  test('voice: the copy lives only in Redis, sealed, with a TTL, and goes once verified', async () => {
    const res = await start({ channel: 'voice', destination: '+2348044444444', code: '55129034' });
    expect(res.status).toBe(201);
    const reference = res.body.data.reference;
    expect(await readVoiceCode(gw.env.redis, gw.env.config, reference)).toBe('55129034');
    expect(await gw.env.redis.get(`${gw.env.config.REDIS_KEY_PREFIX}verify:voice:${reference}`)).not.toContain('55129034');
    const ttl = await voiceCodeTtl(gw.env.redis, gw.env.config, reference);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120);
    const row = await gw.env.db.verification.findUniqueOrThrow({ where: { reference } });
    expect(JSON.stringify(row)).not.toContain('55129034');
    expect((await check(reference, { code: '55129034' })).body.data).toEqual({ status: 'verified' });
    expect(await readVoiceCode(gw.env.redis, gw.env.config, reference)).toBeNull();
  });

  test('metadata is stored but never returned', async () => {
    const metadata = { order_id: 'ord_778', note: 'meta-marker-4417' };
    const res = await start({ channel: 'email', destination: 'meta@example.com', metadata });
    expect(res.status).toBe(201);
    const row = await gw.env.db.verification.findUniqueOrThrow({ where: { reference: res.body.data.reference } });
    expect(row.metadata).toEqual(metadata);
    const got = await read(res.body.data.reference);
    expect(JSON.stringify(res.body)).not.toContain('meta-marker-4417');
    expect(JSON.stringify(got.body)).not.toContain('meta-marker-4417');
    expect(got.body.data).not.toHaveProperty('metadata');
  });

  test.each([
    ['sms', '+2340000000000'],
    ['voice', '+2340000000000'],
    ['email', 'bounce@example.com'],
  ])('%s to the sandbox failure destination %s: 400, row kept as failed, reference in details', async (channel, destination) => {
    const res = await start({ channel, destination });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(/^Could not deliver the code: /);
    const reference = res.body.error.details.reference;
    expect(reference).toMatch(UUID);
    const got = await read(reference);
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ reference, status: 'failed', channel, attempts: 0 });
    expect((await check(reference, { code: '1234' })).body.data).toEqual({ status: 'failed', reason: 'failed' });
  });
});

describe('check', () => {
  test('the whole happy path: start, read the code, check → verified; GET shows the record', async () => {
    const res = await start({ channel: 'email', destination: 'happy@example.com' });
    const reference = res.body.data.reference;
    const code = await codeFor('happy@example.com', reference);
    const checked = await check(reference, { code });
    expect(checked.status).toBe(201);
    expect(checked.body.data).toEqual({ status: 'verified' });
    const again = await check(reference, { code: 'anything' });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual({ status: 'verified' });

    const got = await read(reference);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body.data).sort()).toEqual(
      ['attempts', 'channel', 'created_at', 'destination', 'expires_at', 'max_attempts', 'provider', 'reference', 'status', 'verified_at'].sort(),
    );
    expect(got.body.data).toMatchObject({
      reference,
      channel: 'email',
      destination: 'h***y@example.com',
      status: 'verified',
      attempts: 1,
      max_attempts: 3,
      provider: 'sandbox',
    });
    expect(got.body.data.verified_at).toMatch(ISO);
    expect(got.body.data.created_at).toMatch(ISO);
    expect(got.body.data.expires_at).toBe(res.body.data.expiresAt);

    const events = await gw.env.db.outboxEvent.findMany({ where: { workspaceId, event: 'verification.verified' } });
    expect(events.some((e) => (e.payload as { reference: string }).reference === reference)).toBe(true);
  });

  test('wrong codes: 201 with attempts_remaining, the last one fails the row, then reason failed', async () => {
    const res = await start({ channel: 'sms', destination: '+2348055555555', code: '4444' });
    const reference = res.body.data.reference;
    const first = await check(reference, { code: '0000' });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 2 });
    expect((await check(reference, { code: '0001' })).body.data).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 1 });
    expect((await check(reference, { code: '0002' })).body.data).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: 0 });
    const after = await check(reference, { code: '4444' });
    expect(after.status).toBe(201);
    expect(after.body.data).toEqual({ status: 'failed', reason: 'failed' });
    expect((await read(reference)).body.data).toMatchObject({ status: 'failed', attempts: 3, verified_at: null });
  });

  test('a code of any length is a guess: a long one is a wrong code (201, counted), never an HTTP error', async () => {
    const res = await start({ channel: 'sms', destination: '+2348055555556', code: '4444' });
    const reference = res.body.data.reference;
    for (const [code, left] of [
      ['1'.repeat(65), 2],
      ['9'.repeat(5000), 1],
    ] as const) {
      const r = await check(reference, { code });
      expect(r.status).toBe(201);
      expect(r.body.data).toEqual({ status: 'failed', reason: 'invalid_code', attempts_remaining: left });
    }
    expect((await check(reference, { code: '4444' })).body.data).toEqual({ status: 'verified' });
  });

  test('concurrent wrong checks over HTTP never count past the maximum', async () => {
    const res = await start({ channel: 'sms', destination: '+2348066666666', code: '4444' });
    const reference = res.body.data.reference;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => check(reference, { code: String(1000 + i) })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const remaining = results.filter((r) => r.body.data.reason === 'invalid_code').map((r) => r.body.data.attempts_remaining);
    expect(remaining.sort()).toEqual([0, 1, 2]);
    expect((await read(reference)).body.data).toMatchObject({ status: 'failed', attempts: 3 });
  });

  test('unknown, malformed and other-workspace references: 201 not_found', async () => {
    const res = await start({ channel: 'sms', destination: '+2348077777777', code: '4444' });
    for (const [reference, token] of [
      ['0b7c4d52-9a4e-4f11-8c55-2f6f1d2a9e10', key],
      ['not-a-uuid', key],
      ['%27%20OR%201%3D1', key],
      [res.body.data.reference, otherKey],
    ] as const) {
      const r = await check(reference, { code: '4444' }, token);
      expect(r.status).toBe(201);
      expect(r.body.data).toEqual({ status: 'failed', reason: 'not_found' });
    }
    expect((await read(res.body.data.reference)).body.data).toMatchObject({ status: 'pending', attempts: 0 });
  });

  test.each([
    ['a missing code', {}, 'code is required'],
    ['a numeric code', { code: 4444 }, 'code must be a string'],
    ['a null code', { code: null }, 'code must be a string'],
  ])('%s is 400 naming code, and counts nothing', async (_name, body, message) => {
    const res = await start({ channel: 'sms', destination: '+2348088888888', code: '4444' });
    const r = await check(res.body.data.reference, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: 'invalid_request', message, details: { field: 'code' } });
    expect((await read(res.body.data.reference)).body.data.attempts).toBe(0);
  });

  test('a missing or non-object body on check is 400', async () => {
    const res = await start({ channel: 'sms', destination: '+2348088888889', code: '4444' });
    for (const rawBody of ['', '[]', '"4444"']) {
      const r = await call(gw.url, 'POST', `/v1/verifications/${res.body.data.reference}/check`, {
        token: key,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });
});

describe('read', () => {
  test('unknown, malformed and other-workspace references: 404 not_found', async () => {
    const res = await start({ channel: 'sms', destination: '+2348099999999', code: '4444' });
    for (const [reference, token] of [
      ['0b7c4d52-9a4e-4f11-8c55-2f6f1d2a9e10', key],
      ['nope', key],
      [res.body.data.reference, otherKey],
    ] as const) {
      const r = await read(reference, token);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('scopes', () => {
  test('start and check need verification:write; read needs read', async () => {
    const readOnly = (await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] })).key;
    const writeOnly = (await createWorkspaceWithKey(gw.env.db, { scopes: ['verification:write'] })).key;
    const s = await start({ channel: 'sms', destination: '+2348012121212' }, readOnly);
    expect(s.status).toBe(403);
    expect(s.body.error.code).toBe('insufficient_scope');
    const c = await check('0b7c4d52-9a4e-4f11-8c55-2f6f1d2a9e10', { code: '1234' }, readOnly);
    expect(c.status).toBe(403);
    const ok = await start({ channel: 'sms', destination: '+2348012121212' }, writeOnly);
    expect(ok.status).toBe(201);
    const g = await read(ok.body.data.reference, writeOnly);
    expect(g.status).toBe(403);
    expect(g.body.error.code).toBe('insufficient_scope');
    expect((await call(gw.url, 'POST', '/v1/verifications', { body: { channel: 'sms', destination: '+2348012121212' } })).status).toBe(401);
  });
});

describe('bad input: 400 naming the field, nothing stored, nothing sent', () => {
  test.each([
    ['an unsupported channel', { channel: 'telegram', destination: '+2348010101010' }, 'channel', /channel must be one of sms, voice, email, whatsapp/],
    ['a missing channel', { destination: '+2348010101010' }, 'channel', /channel/],
    ['a missing destination', { channel: 'sms' }, 'destination', /destination is required/],
    ['a numeric destination', { channel: 'sms', destination: 2348010101010 }, 'destination', /destination must be a string/],
    ['a non-Nigerian phone', { channel: 'sms', destination: '+14155552671' }, 'destination', /Nigerian/],
    ['a short Nigerian phone', { channel: 'voice', destination: '+234801010101' }, 'destination', /Nigerian|E\.164/],
    ['a malformed phone', { channel: 'sms', destination: '+234-80-CALL-ME' }, 'destination', /E\.164/],
    ['an email on sms', { channel: 'sms', destination: 'ada@example.com' }, 'destination', /E\.164/],
    ['an invalid email', { channel: 'email', destination: 'ada@' }, 'destination', /valid email/],
    ['a phone on email', { channel: 'email', destination: '+2348010101010' }, 'destination', /valid email/],
    ['a 3-digit code', { channel: 'sms', destination: '+2348010101010', code: '123' }, 'code', /4 to 8 digits/],
    ['a 9-digit code', { channel: 'sms', destination: '+2348010101010', code: '123456789' }, 'code', /4 to 8 digits/],
    ['a code with letters', { channel: 'sms', destination: '+2348010101010', code: '12a4' }, 'code', /4 to 8 digits/],
    ['a numeric code', { channel: 'sms', destination: '+2348010101010', code: 1234 }, 'code', /code must be a string/],
    ['array metadata', { channel: 'sms', destination: '+2348010101010', metadata: [1, 2] }, 'metadata', /must be an object/],
    ['string metadata', { channel: 'sms', destination: '+2348010101010', metadata: 'x' }, 'metadata', /must be an object/],
    [
      'metadata with 51 keys',
      { channel: 'sms', destination: '+2348010101010', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      'metadata',
      /at most 50 keys/,
    ],
    ['metadata over 4 KB', { channel: 'sms', destination: '+2348010101010', metadata: { blob: 'x'.repeat(4100) } }, 'metadata', /at most 4096 bytes/],
  ])('%s', async (_name, body, field, message) => {
    const before = await gw.env.db.verification.count();
    const res = await start(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toEqual({ field });
    expect(res.body.error.message).toMatch(message);
    expect(await gw.env.db.verification.count()).toBe(before);
    expect(await gw.sandboxMessages('+2348010101010')).toEqual([]);
  });

  test.each([
    ['an unknown field', { channel: 'sms', destination: '+2348010101010', extra: 'DEEP' }, 'extra'],
    ['metadata', { channel: 'sms', destination: '+2348010101010', metadata: { note: 'DEEP' } }, 'metadata.note'],
  ])('JSON nested 20,000 levels deep (within the body limit) in %s is 400 naming the field, not 5xx', async (_name, body, field) => {
    const depth = 20_000;
    const rawBody = JSON.stringify(body).replace('"DEEP"', `${'['.repeat(depth)}${']'.repeat(depth)}`);
    const res = await call(gw.url, 'POST', '/v1/verifications', { token: key, rawBody });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.field).toMatch(new RegExp(`^${field.replace('.', '\\.')}(\\.0)+$`));
  });

  test('metadata given as a number a double cannot hold (an exponent, 20 digits) is 400 "must be an object" like 123, nothing stored', async () => {
    const before = await gw.env.db.verification.count();
    for (const number of ['123', '1e400', '-1e400', '1E5', '12345678901234567890']) {
      const rawBody = `{"channel":"email","destination":"a@example.com","metadata":${number}}`;
      const res = await call(gw.url, 'POST', '/v1/verifications', { token: key, rawBody });
      expect([number, res.status, res.body.error?.code, res.body.error?.details, res.body.error?.message]).toEqual([
        number,
        400,
        'invalid_request',
        { field: 'metadata' },
        'metadata must be an object',
      ]);
    }
    expect(await gw.env.db.verification.count()).toBe(before);
    expect(await gw.sandboxMessages('a@example.com')).toEqual([]);
  });

  test('a missing or non-object body is 400', async () => {
    const before = await gw.env.db.verification.count();
    for (const rawBody of ['', '[]', 'null', '"sms"']) {
      const r = await call(gw.url, 'POST', '/v1/verifications', { token: key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    expect(await gw.env.db.verification.count()).toBe(before);
  });
});

describe('secrets', () => {
  test('no code, hash or salt appears in any response or log line', async () => {
    const codes = ['73915824', '61029384', '80736152'];
    const refs: string[] = [];
    for (const [channel, destination, code] of [
      ['sms', '+2348013579246', codes[0]],
      ['voice', '+2348013579247', codes[1]],
      ['email', 'secret@example.com', codes[2]],
    ] as const) {
      const res = await start({ channel, destination, code });
      expect(res.status).toBe(201);
      refs.push(res.body.data.reference);
      await check(res.body.data.reference, { code: '00000000' });
      await check(res.body.data.reference, { code });
      await read(res.body.data.reference);
    }
    const failed = await start({ channel: 'sms', destination: '+2340000000000', code: '42424242' });
    expect(failed.status).toBe(400);
    codes.push('42424242');

    const rows = await gw.env.db.verification.findMany({ where: { reference: { in: [...refs, failed.body.error.details.reference] } } });
    const secrets = [...codes, ...rows.flatMap((r) => [r.codeHash, r.codeSalt])];
    const responses = bodies.join('\n');
    const logs = gw.env.logLines.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain(refs[0]);
    for (const secret of secrets) {
      expect(responses).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(responses).not.toMatch(/code_?hash|code_?salt|codeHash|codeSalt/i);
  });
});

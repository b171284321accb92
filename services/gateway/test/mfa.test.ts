// Risk: two-step sign-in over HTTP that can be got around or locks the wrong
// people out: a session handed out without the code, a code or a recovery
// code that works twice, a challenge that works twice or after its 5 minutes,
// unlimited guesses at codes (or guesses spread over the addresses of an
// IPv6 /64, or over many addresses, or a 429 without Retry-After), an owner or admin without a second factor
// reaching more than enrolment under REQUIRE_MFA_FOR_ADMINS, a reset by
// someone who is not an owner, a factor turned off without a fresh code, a
// TOTP secret or recovery code kept readable or cached. The exact ±1 time-step
// window is tested with an injected clock in @cowrie/accounts
// (second-factor.test.ts); here codes are made from the real clock, only of
// the current step or the next (both still valid if a step ends in between).
import { generateSync } from 'otplib';
import { issueLoginChallenge } from '@cowrie/accounts';
import { createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  // Every request comes from 127.0.0.1: the per-address limit is not what is tested here.
  gw = await startTestGateway({ REQUIRE_MFA_FOR_ADMINS: 'true', AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
});
afterAll(() => gw.close());

/** The TOTP code of the step `steps` away from now (0: the current one, 1: the next). */
const totp = (secret: string, steps = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
/** A 6-digit code that is none of the codes valid now or soon. */
const wrongCode = (secret: string) => {
  const valid = new Set([-2, -1, 0, 1, 2].map((steps) => totp(secret, steps)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
};

let emails = 0;
/** A user of a new workspace (an owner unless told), signed in with their password. */
async function newUser(role: 'owner' | 'admin' | 'member' = 'owner', workspaceId?: number, on: typeof gw = gw) {
  const wsId = workspaceId ?? (await createWorkspaceWithKey(on.env.db)).workspace.id;
  const user = await createUserFor(on.env.db, wsId, `mfa-${++emails}@example.com`);
  if (role !== 'owner') await on.env.db.dashboardUser.update({ where: { id: user.id }, data: { role } });
  const login = await call(on.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
  expect(login.status).toBe(200);
  return { ...user, workspaceId: wsId, token: login.body.data.token as string };
}

/** Enrols `user` through the API: the secret, its confirmation with the current code, the recovery codes. */
async function enrol(user: { token: string }, on: typeof gw = gw) {
  const started = await call(on.url, 'POST', '/auth/mfa/totp', { token: user.token });
  expect(started.status).toBe(200);
  const secret = started.body.data.secret as string;
  rememberSecret(secret);
  const confirmed = await call(on.url, 'POST', '/auth/mfa/totp/confirm', { token: user.token, body: { code: totp(secret) } });
  expect(confirmed.status).toBe(200);
  const recoveryCodes = confirmed.body.data.recovery_codes as string[];
  recoveryCodes.forEach(rememberSecret);
  return { secret, recoveryCodes };
}

const passwordStep = (user: { email: string; password: string }, on: typeof gw = gw) =>
  call(on.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
const codeStep = (challenge: string, code: string) => call(gw.url, 'POST', '/auth/login/mfa', { body: { challenge, code } });

test('enrol, confirm, then sign-in takes the password and a code: a challenge first, no token, then the session', async () => {
  const user = await newUser('member');
  const started = await call(gw.url, 'POST', '/auth/mfa/totp', { token: user.token });
  expect(started.status).toBe(200);
  expect(started.headers.get('cache-control')).toBe('no-store');
  const { secret, otpauth_url } = started.body.data;
  rememberSecret(secret);
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(otpauth_url).toBe(`otpauth://totp/Cowrie:${encodeURIComponent(user.email)}?secret=${secret}&issuer=Cowrie`);
  // Not in force yet: the password alone still signs in.
  expect((await passwordStep(user)).body.data).toMatchObject({ mfa_required: false, token: expect.any(String) });
  expect((await call(gw.url, 'GET', '/auth/mfa', { token: user.token })).body.data).toEqual({
    totp_enabled: false,
    recovery_codes_remaining: 0,
    enrolment_required: false,
  });

  const wrong = await call(gw.url, 'POST', '/auth/mfa/totp/confirm', { token: user.token, body: { code: wrongCode(secret) } });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'code' } });
  const confirmed = await call(gw.url, 'POST', '/auth/mfa/totp/confirm', { token: user.token, body: { code: totp(secret) } });
  expect(confirmed.status).toBe(200);
  expect(confirmed.headers.get('cache-control')).toBe('no-store');
  const recoveryCodes: string[] = confirmed.body.data.recovery_codes;
  recoveryCodes.forEach(rememberSecret);
  expect(recoveryCodes).toHaveLength(10);
  expect((await call(gw.url, 'GET', '/auth/mfa', { token: user.token })).body.data).toMatchObject({ totp_enabled: true, recovery_codes_remaining: 10 });
  // A second enrolment while one is on is refused.
  expect((await call(gw.url, 'POST', '/auth/mfa/totp', { token: user.token })).body.error.details).toEqual({ reason: 'mfa_already_enabled' });

  const first = await passwordStep(user);
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual({ mfa_required: true, challenge: expect.any(String), expires_in: 300 });
  expect(first.body.data.token).toBeUndefined();
  // The challenge is no session token.
  expect((await call(gw.url, 'GET', '/users', { token: first.body.data.challenge })).status).toBe(401);
  const wrongStep = await codeStep(first.body.data.challenge, wrongCode(secret));
  expect(wrongStep.status).toBe(401);
  expect(wrongStep.body.error.code).toBe('unauthorized');
  // The code that confirmed enrolment was used: refused (replay); a wrong code left the challenge usable.
  const replayed = await codeStep(first.body.data.challenge, (await lastUsedCode(user.id, secret))!);
  expect(replayed.status).toBe(401);
  expect(replayed.body.error.message).toMatch(/already used/);
  const second = await codeStep(first.body.data.challenge, totp(secret, 1));
  expect(second.status).toBe(200);
  expect(second.headers.get('cache-control')).toBe('no-store');
  expect(second.body.data).toMatchObject({ token: expect.any(String), mfa_required: false, mfa_enrolment_required: false, expires_in: expect.any(Number) });
  expect((await call(gw.url, 'GET', '/users', { token: second.body.data.token })).status).toBe(200);
  // One challenge, one session.
  expect((await codeStep(first.body.data.challenge, recoveryCodes[0]!)).status).toBe(401);
  expect(gw.env.logLines.join('\n')).not.toContain(secret);
});

/** The code of the time step last accepted for the user (what a replay would send). */
async function lastUsedCode(userId: number, secret: string) {
  const row = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: userId } });
  return row.totpLastStep === null ? null : generateSync({ secret, epoch: row.totpLastStep * 30 });
}

test('a recovery code signs in once in place of a code', async () => {
  const user = await newUser('member');
  const { recoveryCodes } = await enrol(user);
  const code = recoveryCodes[3]!;
  const first = await codeStep((await passwordStep(user)).body.data.challenge, code);
  expect(first.status).toBe(200);
  const again = await codeStep((await passwordStep(user)).body.data.challenge, code);
  expect(again.status).toBe(401);
  expect((await call(gw.url, 'GET', '/auth/mfa', { token: first.body.data.token })).body.data.recovery_codes_remaining).toBe(9);
});

test('one challenge sent twice at once with two right codes signs in once', async () => {
  const user = await newUser('member');
  const { secret, recoveryCodes } = await enrol(user);
  const { challenge } = (await passwordStep(user)).body.data;
  const answers = await Promise.all([codeStep(challenge, totp(secret, 1)), codeStep(challenge, recoveryCodes[0]!)]);
  expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
});

test('a spent challenge sent again spends no code: the recovery code (or the time step) it carried still signs in', async () => {
  const user = await newUser('member');
  const { secret, recoveryCodes } = await enrol(user);
  const { challenge } = (await passwordStep(user)).body.data;
  expect((await codeStep(challenge, recoveryCodes[0]!)).status).toBe(200);
  const replayed = await codeStep(challenge, recoveryCodes[1]!);
  expect(replayed.status).toBe(401);
  expect(replayed.body.error.message).toMatch(/already completed/);
  const withTotp = await codeStep(challenge, totp(secret, 1));
  expect(withTotp.status).toBe(401);
  // Neither code was used: each signs in on a fresh challenge.
  const next = await codeStep((await passwordStep(user)).body.data.challenge, recoveryCodes[1]!);
  expect(next.status).toBe(200);
  expect((await codeStep((await passwordStep(user)).body.data.challenge, totp(secret, 1))).status).toBe(200);
  expect((await call(gw.url, 'GET', '/auth/mfa', { token: next.body.data.token })).body.data.recovery_codes_remaining).toBe(8);
});

test('a wrong code leaves the challenge usable: the right one then signs in with it', async () => {
  const user = await newUser('member');
  const { secret } = await enrol(user);
  const { challenge } = (await passwordStep(user)).body.data;
  expect((await codeStep(challenge, wrongCode(secret))).status).toBe(401);
  expect((await codeStep(challenge, totp(secret, 1))).status).toBe(200);
});

test('a challenge older than 5 minutes, of a user signed out since, or forged, is refused', async () => {
  const user = await newUser('member');
  const { secret } = await enrol(user);
  const row = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
  const expired = await issueLoginChallenge(row, gw.env.config.JWT_SECRET, new Date(Date.now() - 301_000));
  const old = await codeStep(expired, totp(secret, 1));
  expect(old.status).toBe(401);
  expect(old.body.error.message).toMatch(/expired/);
  const fresh = await issueLoginChallenge(row, gw.env.config.JWT_SECRET, new Date(Date.now() - 290_000));
  const { challenge } = (await passwordStep(user)).body.data;
  // Signing out everywhere (another tab) ends the challenge of the sign-in under way.
  await call(gw.url, 'POST', '/auth/logout', { token: user.token });
  expect((await codeStep(challenge, totp(secret, 1))).status).toBe(401);
  expect((await codeStep(fresh, totp(secret, 1))).status).toBe(401);
  const forged = await issueLoginChallenge(row, 'a different secret of more than 32 characters', new Date());
  expect((await codeStep(forged, totp(secret, 1))).status).toBe(401);
  expect((await codeStep('not-a-challenge', totp(secret, 1))).status).toBe(401);
});

test('wrong codes are limited like passwords: 10 per user in 15 minutes, then 429 even for the right code', async () => {
  const user = await newUser('member');
  const { secret } = await enrol(user);
  const { challenge } = (await passwordStep(user)).body.data;
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await codeStep(challenge, wrongCode(secret))).status);
  expect(statuses).toEqual(Array(10).fill(401));
  const limited = await codeStep(challenge, totp(secret, 1));
  expect(limited.status).toBe(429);
  expect(limited.body.error.details.retry_after_seconds).toBeGreaterThan(0);
  expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.error.details.retry_after_seconds);
  // The session routes that take a code share the user's counter.
  const stepUp = await call(gw.url, 'POST', '/auth/step-up', { token: user.token, body: { code: totp(secret, 1) } });
  expect(stepUp.status).toBe(429);
  expect(Number(stepUp.headers.get('retry-after'))).toBeGreaterThan(0);
  // Another user is not affected.
  const other = await newUser('member');
  const otherSecret = (await enrol(other)).secret;
  expect((await codeStep((await passwordStep(other)).body.data.challenge, totp(otherSecret, 1))).status).toBe(200);
});

test('concurrent wrong codes never get past the limit', async () => {
  const user = await newUser('member');
  const { secret } = await enrol(user);
  const { challenge } = (await passwordStep(user)).body.data;
  const statuses = await Promise.all(Array.from({ length: 16 }, () => codeStep(challenge, wrongCode(secret)).then((r) => r.status)));
  expect(statuses.filter((s) => s === 401)).toHaveLength(10);
  expect(statuses.filter((s) => s === 429)).toHaveLength(6);
});

describe("behind a proxy (TRUST_PROXY): codes on the sign-ins' address counter, and a user's own counter that locks", () => {
  let proxied: typeof gw;
  beforeAll(async () => {
    proxied = await startTestGateway({ TRUST_PROXY: '1', AUTH_LOGIN_IP_FAILURE_LIMIT: '3' });
  });
  afterAll(() => proxied?.close());
  const from = (address: string, path: string, opts: { token?: string; body: unknown }) =>
    call(proxied.url, 'POST', path, { ...opts, headers: { 'X-Forwarded-For': address } });

  test('wrong codes and wrong passwords of one IPv6 /64 add up on one address counter (429 with Retry-After); the next /64 has its own', async () => {
    const user = await newUser('member', undefined, proxied);
    const { secret } = await enrol(user, proxied);
    const { challenge } = (await from('2001:db8:7:8::1', '/auth/login', { body: { email: user.email, password: user.password } })).body.data;
    const statuses = [
      (await from('2001:db8:7:8::1', '/auth/login/mfa', { body: { challenge, code: wrongCode(secret) } })).status,
      (await from('2001:db8:7:8:ffff::2', '/auth/step-up', { token: user.token, body: { code: wrongCode(secret) } })).status,
      (await from('2001:db8:0007:0008::3', '/auth/login', { body: { email: 'somebody.else@example.com', password: 'a guess' } })).status,
    ];
    // A wrong code at step-up is a 400 on the field, a failure all the same.
    expect(statuses).toEqual([401, 400, 401]);
    const refused = await from('2001:db8:7:8::9', '/auth/login/mfa', { body: { challenge, code: totp(secret, 1) } });
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers.get('retry-after'))).toBe(refused.body.error.details.retry_after_seconds);
    expect(refused.body.error.details.retry_after_seconds).toBeGreaterThan(0);
    expect((await from('2001:db8:7:9::1', '/auth/login/mfa', { body: { challenge, code: totp(secret, 1) } })).status).toBe(200);
  });

  test("unlike a password's per-email counter (which only slows), a user's wrong codes from many addresses lock their codes: 429 from a fresh address too", async () => {
    const user = await newUser('member', undefined, proxied);
    const { secret } = await enrol(user, proxied);
    const { challenge } = (await passwordStep({ email: user.email, password: user.password }, proxied)).body.data;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await from(`198.51.100.${i + 1}`, '/auth/login/mfa', { body: { challenge, code: wrongCode(secret) } })).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const refused = await from('192.0.2.200', '/auth/login/mfa', { body: { challenge, code: totp(secret, 1) } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Their password is not locked by it: a new sign-in gets a challenge (its code is refused until the window ends).
    expect((await passwordStep({ email: user.email, password: user.password }, proxied)).body.data).toMatchObject({ mfa_required: true });
  });
});

test('REQUIRE_MFA_FOR_ADMINS: an owner or admin without a second factor may only enrol (and sign out); members are free', async () => {
  for (const role of ['owner', 'admin'] as const) {
    const user = await newUser(role);
    const login = await passwordStep(user);
    expect(login.body.data).toMatchObject({ mfa_required: false, mfa_enrolment_required: true });
    const refused = await call(gw.url, 'GET', '/users', { token: user.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_scope', details: { reason: 'mfa_enrolment_required' } });
    expect((await call(gw.url, 'GET', '/balances', { token: user.token })).status).toBe(403);
    expect((await call(gw.url, 'POST', '/auth/step-up', { token: user.token, body: { password: user.password } })).status).toBe(403);
    expect((await call(gw.url, 'GET', '/auth/mfa', { token: user.token })).body.data).toMatchObject({ enrolment_required: true });
    await enrol(user);
    // The same session, now with a second factor.
    expect((await call(gw.url, 'GET', '/users', { token: user.token })).status).toBe(200);
  }
  const member = await newUser('member');
  expect((await call(gw.url, 'GET', '/users', { token: member.token })).status).toBe(200);
});

test("an owner resets another user's second factor: their sessions end, they sign in with the password alone; nobody else can", async () => {
  const owner = await newUser('owner');
  const ownerFactor = await enrol(owner);
  const admin = await newUser('admin', owner.workspaceId);
  const adminFactor = await enrol(admin);
  const member = await newUser('member', owner.workspaceId);
  await enrol(member);

  // An admin cannot, even stepped up.
  const byAdmin = await call(gw.url, 'DELETE', `/users/${member.id}/mfa`, { token: admin.token });
  expect(byAdmin.status).toBe(403);
  expect(byAdmin.body.error.details).toEqual({ required_role: 'owner' });
  // Not one's own: that is turned off with a code.
  expect((await call(gw.url, 'DELETE', `/users/${owner.id}/mfa`, { token: owner.token })).status).toBe(400);
  expect((await call(gw.url, 'DELETE', '/users/999999/mfa', { token: owner.token })).status).toBe(404);

  const reset = await call(gw.url, 'DELETE', `/users/${admin.id}/mfa`, { token: owner.token });
  expect(reset.status).toBe(200);
  expect(reset.body.data).toMatchObject({ id: admin.id, mfa_enabled: false });
  // Who reset whose, in the audit trail (audit-events.test.ts checks the row).
  expect(await gw.env.db.auditEvent.count({ where: { action: 'user.mfa_reset', objectId: String(admin.id), actorUserId: owner.id } })).toBe(1);
  // Their session ended; the old secret is gone; they sign in with the password alone, and (an admin) must enrol again.
  expect((await call(gw.url, 'GET', '/auth/mfa', { token: admin.token })).status).toBe(401);
  const again = await passwordStep(admin);
  expect(again.body.data).toMatchObject({ mfa_required: false, mfa_enrolment_required: true });
  const row = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: admin.id } });
  expect(row.totpSecretSealed).toBeNull();
  expect(adminFactor.secret).not.toBe(ownerFactor.secret);
  const listed = await call(gw.url, 'GET', '/users', { token: owner.token });
  expect(listed.body.data.find((u: { id: number }) => u.id === member.id).mfa_enabled).toBe(true);
});

test('a user turns their own second factor off with a fresh code, never without one', async () => {
  const user = await newUser('member');
  const { secret } = await enrol(user);
  const wrong = await call(gw.url, 'POST', '/auth/mfa/totp/disable', { token: user.token, body: { code: wrongCode(secret) } });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error.details).toMatchObject({ field: 'code' });
  // The code that confirmed enrolment was used already.
  const replay = await call(gw.url, 'POST', '/auth/mfa/totp/disable', { token: user.token, body: { code: (await lastUsedCode(user.id, secret))! } });
  expect(replay.status).toBe(400);
  expect((await call(gw.url, 'POST', '/auth/mfa/totp/disable', { token: user.token, body: {} })).status).toBe(400);
  const off = await call(gw.url, 'POST', '/auth/mfa/totp/disable', { token: user.token, body: { code: totp(secret, 1) } });
  expect(off.status).toBe(200);
  expect(off.body.data).toEqual({ totp_enabled: false, recovery_codes_remaining: 0, enrolment_required: false });
  expect((await passwordStep(user)).body.data).toMatchObject({ mfa_required: false, token: expect.any(String) });
  expect(await gw.env.db.mfaRecoveryCode.count({ where: { userId: user.id } })).toBe(0);
  // Without a factor there is nothing to turn off.
  expect((await call(gw.url, 'POST', '/auth/mfa/totp/disable', { token: user.token, body: { code: totp(secret, 1) } })).body.error.details).toMatchObject({
    reason: 'mfa_not_enabled',
  });
});

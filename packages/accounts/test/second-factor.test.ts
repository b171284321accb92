// Risk: a second factor that can be got around: a code outside one time step
// of now accepted, a code used twice (one after the other, or two requests at
// once), a recovery code that works more than once or is stored readable, a
// TOTP secret stored in clear, a sign-in challenge that outlives its 5
// minutes, works twice or passes for a session token; a step-up that stays
// fresh for longer than STEP_UP_SECONDS; an owner reset by someone who is not
// an owner. The clock is passed in (`now`), so every boundary is exact.
import { generateSync } from 'otplib';
import { createTestEnv, createUserFor, createWorkspaceWithKey, rememberSecret, type TestEnv } from '@cowrie/testing';
import {
  LOGIN_CHALLENGE_TTL_SECONDS,
  RECOVERY_CODE_COUNT,
  checkLoginChallengeCode,
  checkSecondFactor,
  confirmTotpEnrolment,
  issueLoginChallenge,
  readLoginChallenge,
  recordStepUp,
  secondFactorStatus,
  spendLoginChallenge,
  startTotpEnrolment,
  stepUpFresh,
  turnOffSecondFactor,
} from '../src/second-factor';
import { issueSessionToken, verifySessionToken } from '../src/sessions';
import { resetSecondFactor } from '../src/team';
import { currentSessionUser } from '../src/users';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

/** The middle of a 30-second step, so that ±30 s is exactly one step away. */
const T = new Date(1_800_000_015_000);
const at = (seconds: number) => new Date(T.getTime() + seconds * 1000);
const codeAt = (secret: string, seconds: number) => generateSync({ secret, epoch: Math.floor(at(seconds).getTime() / 1000) });

async function newUser(role: 'owner' | 'admin' | 'member' = 'owner') {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const user = await createUserFor(env.db, workspace.id, `u-${Math.random().toString(36).slice(2)}@example.com`);
  if (role !== 'owner') await env.db.dashboardUser.update({ where: { id: user.id }, data: { role } });
  return { ...user, workspaceId: workspace.id };
}

/** A user with TOTP on (confirmed at T - 10 minutes) and their secret and recovery codes. */
async function enrolled(role: 'owner' | 'admin' | 'member' = 'owner') {
  const user = await newUser(role);
  const { secret } = await startTotpEnrolment(env.db, { userId: user.id, encryptionKey: env.config.ENCRYPTION_KEY });
  rememberSecret(secret);
  const confirmed = await confirmTotpEnrolment(env.db, {
    userId: user.id,
    code: codeAt(secret, -600),
    encryptionKey: env.config.ENCRYPTION_KEY,
    now: at(-600),
  });
  if (confirmed.kind !== 'confirmed') throw new Error('enrolment failed');
  confirmed.recoveryCodes.forEach(rememberSecret);
  return { user, secret, recoveryCodes: confirmed.recoveryCodes };
}

const check = (userId: number, code: string, seconds = 0) =>
  checkSecondFactor(env.db, { userId, code, encryptionKey: env.config.ENCRYPTION_KEY, now: at(seconds) });

describe('enrolment', () => {
  test('a base32 secret with its otpauth URL (issuer Cowrie, the email as account), stored sealed, in force only once a code confirms it', async () => {
    const user = await newUser();
    const { secret, otpauth_url } = await startTotpEnrolment(env.db, { userId: user.id, encryptionKey: env.config.ENCRYPTION_KEY });
    rememberSecret(secret);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url.startsWith(`otpauth://totp/Cowrie:${encodeURIComponent(user.email)}?`)).toBe(true);
    const query = new URLSearchParams(otpauth_url.split('?')[1]);
    expect(query.get('secret')).toBe(secret);
    expect(query.get('issuer')).toBe('Cowrie');
    const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.totpSecretSealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.totpConfirmedAt).toBeNull();
    // Not in force: a code is no second factor yet.
    expect(await check(user.id, codeAt(secret, 0))).toEqual({ kind: 'refused', reason: 'no_factor' });

    const wrong = await confirmTotpEnrolment(env.db, { userId: user.id, code: codeAt(secret, -90), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(wrong).toEqual({ kind: 'wrong_code' });
    expect((await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } })).totpConfirmedAt).toBeNull();

    const confirmed = await confirmTotpEnrolment(env.db, { userId: user.id, code: codeAt(secret, 0), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    if (confirmed.kind !== 'confirmed') throw new Error('not confirmed');
    confirmed.recoveryCodes.forEach(rememberSecret);
    expect(confirmed.recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(confirmed.recoveryCodes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of confirmed.recoveryCodes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    const stored = await env.db.mfaRecoveryCode.findMany({ where: { userId: user.id } });
    expect(stored).toHaveLength(RECOVERY_CODE_COUNT);
    for (const code of confirmed.recoveryCodes) expect(JSON.stringify(stored)).not.toContain(code.replace(/-/g, ''));
    expect(await secondFactorStatus(env.db, { userId: user.id, requireMfaForAdmins: true })).toEqual({
      totp_enabled: true,
      recovery_codes_remaining: RECOVERY_CODE_COUNT,
      enrolment_required: false,
    });
    // The code that confirmed it was used: it cannot sign in.
    expect(await check(user.id, codeAt(secret, 0))).toEqual({ kind: 'refused', reason: 'replayed' });
  });

  test('a second enrolment while one is on is refused; one started again replaces the unconfirmed secret', async () => {
    const { user } = await enrolled();
    await expect(startTotpEnrolment(env.db, { userId: user.id, encryptionKey: env.config.ENCRYPTION_KEY })).rejects.toMatchObject({
      code: 'invalid_request',
      details: { reason: 'mfa_already_enabled' },
    });
    const other = await newUser();
    const first = await startTotpEnrolment(env.db, { userId: other.id, encryptionKey: env.config.ENCRYPTION_KEY });
    const second = await startTotpEnrolment(env.db, { userId: other.id, encryptionKey: env.config.ENCRYPTION_KEY });
    [first.secret, second.secret].forEach(rememberSecret);
    expect(second.secret).not.toBe(first.secret);
    const stale = await confirmTotpEnrolment(env.db, { userId: other.id, code: codeAt(first.secret, 0), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(stale).toEqual({ kind: 'wrong_code' });
    const fresh = await confirmTotpEnrolment(env.db, { userId: other.id, code: codeAt(second.secret, 0), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(fresh.kind).toBe('confirmed');
  });
});

describe('codes', () => {
  test('a code of the step before, of now, or of the step after is accepted; two steps away is refused', async () => {
    const { user, secret } = await enrolled();
    expect(await check(user.id, codeAt(secret, -60))).toEqual({ kind: 'refused', reason: 'wrong_code' });
    expect(await check(user.id, codeAt(secret, 60))).toEqual({ kind: 'refused', reason: 'wrong_code' });
    expect(await check(user.id, codeAt(secret, -30))).toEqual({ kind: 'accepted', via: 'totp' });
    expect(await check(user.id, codeAt(secret, 0))).toEqual({ kind: 'accepted', via: 'totp' });
    expect(await check(user.id, codeAt(secret, 30))).toEqual({ kind: 'accepted', via: 'totp' });
    // Steps, not seconds: 1 s before the end of a step, the next step's code is accepted, the one after it is not.
    const edge = await enrolled();
    expect(await check(edge.user.id, codeAt(edge.secret, 46), 14)).toEqual({ kind: 'refused', reason: 'wrong_code' });
    expect(await check(edge.user.id, codeAt(edge.secret, 16), 14)).toEqual({ kind: 'accepted', via: 'totp' });
  });

  test('a code already used is refused, as is any code of an earlier step once a later one was used', async () => {
    const { user, secret } = await enrolled();
    const code = codeAt(secret, 0);
    expect(await check(user.id, code)).toEqual({ kind: 'accepted', via: 'totp' });
    expect(await check(user.id, code)).toEqual({ kind: 'refused', reason: 'replayed' });
    expect(await check(user.id, code, 20)).toEqual({ kind: 'refused', reason: 'replayed' });
    expect(await check(user.id, codeAt(secret, 30))).toEqual({ kind: 'accepted', via: 'totp' });
    expect(await check(user.id, codeAt(secret, -30))).toEqual({ kind: 'refused', reason: 'replayed' });
  });

  test('one code sent by many requests at once is accepted exactly once', async () => {
    const { user, secret } = await enrolled();
    const code = codeAt(secret, 0);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => check(user.id, code)));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'refused' && o.reason === 'replayed')).toHaveLength(7);
  });

  test('a recovery code works once, typed in any case, with or without its dashes; they are stored hashed', async () => {
    const { user, recoveryCodes } = await enrolled();
    const [first, second] = recoveryCodes as [string, string];
    expect(await check(user.id, first)).toEqual({ kind: 'accepted', via: 'recovery_code' });
    expect(await check(user.id, first)).toEqual({ kind: 'refused', reason: 'wrong_code' });
    expect(await check(user.id, ` ${second.replace(/-/g, '').toUpperCase()} `)).toEqual({ kind: 'accepted', via: 'recovery_code' });
    const concurrent = recoveryCodes[2]!;
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => check(user.id, concurrent)));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(1);
    expect((await secondFactorStatus(env.db, { userId: user.id, requireMfaForAdmins: false })).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT - 3);
    // Another user's recovery code is not this user's.
    const other = await enrolled();
    expect(await check(user.id, other.recoveryCodes[0]!)).toEqual({ kind: 'refused', reason: 'wrong_code' });
    expect(await check(user.id, 'not-a-code')).toEqual({ kind: 'refused', reason: 'wrong_code' });
  });

  test('turning the factor off needs a fresh code, and deletes the secret and the recovery codes', async () => {
    const { user, secret } = await enrolled();
    const wrong = await turnOffSecondFactor(env.db, { userId: user.id, code: codeAt(secret, 90), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(wrong).toEqual({ kind: 'refused', reason: 'wrong_code' });
    const off = await turnOffSecondFactor(env.db, { userId: user.id, code: codeAt(secret, 0), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(off).toEqual({ kind: 'accepted', via: 'totp' });
    const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
    expect([row.totpSecretSealed, row.totpConfirmedAt, row.totpLastStep]).toEqual([null, null, null]);
    expect(await env.db.mfaRecoveryCode.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe('the sign-in challenge', () => {
  test('valid for 5 minutes, spent once, and never taken for a session token nor a session token for it', async () => {
    const { user, secret } = await enrolled();
    const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
    const token = await issueLoginChallenge(row, env.config.JWT_SECRET, T);
    expect(LOGIN_CHALLENGE_TTL_SECONDS).toBe(300);
    const challenge = await readLoginChallenge(token, env.config.JWT_SECRET, at(299));
    expect(challenge).toMatchObject({ userId: user.id, version: row.sessionVersion });
    expect(await readLoginChallenge(token, env.config.JWT_SECRET, at(301))).toBeNull();
    expect(await readLoginChallenge(token, 'another secret of at least 32 characters', at(1))).toBeNull();
    expect(await verifySessionToken(token, env.config.JWT_SECRET)).toBeNull();
    const session = await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 60);
    expect(await readLoginChallenge(session, env.config.JWT_SECRET)).toBeNull();

    const signedIn = await checkLoginChallengeCode(env.db, {
      challenge: challenge!,
      code: codeAt(secret, 0),
      encryptionKey: env.config.ENCRYPTION_KEY,
      now: T,
    });
    expect(signedIn).toMatchObject({ kind: 'signed_in', user: { id: user.id, workspaceId: user.workspaceId } });
    expect(await spendLoginChallenge(env.redis, env.config.REDIS_KEY_PREFIX, challenge!, T)).toBe(true);
    expect(await spendLoginChallenge(env.redis, env.config.REDIS_KEY_PREFIX, challenge!, T)).toBe(false);
  });

  test('a challenge of a user who signed out (or was removed) since the password step has ended', async () => {
    const { user, secret } = await enrolled();
    const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
    const challenge = (await readLoginChallenge(await issueLoginChallenge(row, env.config.JWT_SECRET, T), env.config.JWT_SECRET, T))!;
    await env.db.dashboardUser.update({ where: { id: user.id }, data: { sessionVersion: { increment: 1 } } });
    const outcome = await checkLoginChallengeCode(env.db, { challenge, code: codeAt(secret, 0), encryptionKey: env.config.ENCRYPTION_KEY, now: T });
    expect(outcome).toEqual({ kind: 'ended' });
  });
});

describe('step-up freshness', () => {
  test('a session is stepped up at its sign-in and at each step-up, for STEP_UP_SECONDS', async () => {
    const user = await newUser();
    const token = await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 3600, at(-1000));
    const session = (await verifySessionToken(token, env.config.JWT_SECRET))!;
    expect(session.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const policy = { requireMfaForAdmins: false, stepUpSeconds: 300 };
    expect(stepUpFresh(session, null, 300, at(-1000 + 299))).toBe(true);
    expect(stepUpFresh(session, null, 300, at(-1000 + 300))).toBe(false);
    expect((await currentSessionUser(env.db, session, 'live', policy, T))?.steppedUp).toBe(false);
    await recordStepUp(env.db, session, at(-100));
    expect((await currentSessionUser(env.db, session, 'live', policy, T))?.steppedUp).toBe(true);
    expect((await currentSessionUser(env.db, session, 'live', policy, at(199)))?.steppedUp).toBe(true);
    expect((await currentSessionUser(env.db, session, 'live', policy, at(200)))?.steppedUp).toBe(false);
    // Another session of the same user is not stepped up by this one's step-up.
    const other = (await verifySessionToken(
      await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 3600, at(-1000)),
      env.config.JWT_SECRET,
    ))!;
    expect((await currentSessionUser(env.db, other, 'live', policy, T))?.steppedUp).toBe(false);
  });

  test("a step-up deletes the user's rows of expired sessions", async () => {
    const user = await newUser();
    const old = (await verifySessionToken(
      await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 60, at(-120)),
      env.config.JWT_SECRET,
    ))!;
    await recordStepUp(env.db, old, at(-100));
    const current = (await verifySessionToken(
      await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 3600, T),
      env.config.JWT_SECRET,
    ))!;
    await recordStepUp(env.db, current, T);
    expect((await env.db.sessionStepUp.findMany({ where: { userId: user.id } })).map((r) => r.sessionId)).toEqual([current.sessionId]);
  });

  test('REQUIRE_MFA_FOR_ADMINS holds an owner or admin without a second factor to enrolment; members, and those with one, are free', async () => {
    const policy = { requireMfaForAdmins: true, stepUpSeconds: 300 };
    const sessionOf = async (user: { id: number; workspaceId: number }) =>
      (await verifySessionToken(
        await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: 0 }, env.config.JWT_SECRET, 60),
        env.config.JWT_SECRET,
      ))!;
    for (const role of ['owner', 'admin'] as const) {
      const user = await newUser(role);
      expect((await currentSessionUser(env.db, await sessionOf(user), 'live', policy))?.mfaEnrolmentRequired).toBe(true);
      expect((await currentSessionUser(env.db, await sessionOf(user), 'live', { ...policy, requireMfaForAdmins: false }))?.mfaEnrolmentRequired).toBe(false);
      const { user: withFactor } = await enrolled(role);
      expect((await currentSessionUser(env.db, await sessionOf(withFactor), 'live', policy))?.mfaEnrolmentRequired).toBe(false);
    }
    const member = await newUser('member');
    expect((await currentSessionUser(env.db, await sessionOf(member), 'live', policy))?.mfaEnrolmentRequired).toBe(false);
  });
});

describe("an owner's reset of another user's second factor", () => {
  test('only an owner, never their own, only in their workspace; the factor, its recovery codes and the sessions go', async () => {
    const { user: target, secret } = await enrolled('admin');
    const owner = await createUserFor(env.db, target.workspaceId, `owner-${Math.random().toString(36).slice(2)}@example.com`);
    const admin = { userId: 999_999, role: 'admin' as const };
    await expect(resetSecondFactor(env.db, { workspaceId: target.workspaceId, actor: admin, id: target.id })).rejects.toMatchObject({
      code: 'insufficient_scope',
    });
    await expect(
      resetSecondFactor(env.db, { workspaceId: target.workspaceId, actor: { userId: target.id, role: 'owner' }, id: target.id }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    const stranger = await newUser();
    await expect(
      resetSecondFactor(env.db, { workspaceId: stranger.workspaceId, actor: { userId: stranger.id, role: 'owner' }, id: target.id }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    const before = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: target.id } });
    const reset = await resetSecondFactor(env.db, { workspaceId: target.workspaceId, actor: { userId: owner.id, role: 'owner' }, id: target.id });
    expect(reset).toMatchObject({ hadSecondFactor: true, user: { id: target.id, mfa_enabled: false } });
    const after = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: target.id } });
    expect([after.totpSecretSealed, after.totpConfirmedAt]).toEqual([null, null]);
    expect(after.sessionVersion).toBe(before.sessionVersion + 1);
    expect(await env.db.mfaRecoveryCode.count({ where: { userId: target.id } })).toBe(0);
    expect(await check(target.id, codeAt(secret, 30))).toEqual({ kind: 'refused', reason: 'no_factor' });
  });
});

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { AppError, decryptSecret, encryptSecret, type RedisClient } from '@cowrie/core';
import type { DbOrTx, PrismaClient } from '@cowrie/db';

/**
 * A dashboard user's second factor: a TOTP secret (RFC 6238: SHA-1, 6 digits,
 * 30-second steps, the authenticator apps' defaults) and ten single-use
 * recovery codes. The secret is stored sealed with ENCRYPTION_KEY and shown
 * once, at enrolment; the recovery codes are stored as SHA-256 hashes and
 * shown once, at confirmation.
 */
export const TOTP_ISSUER = 'Cowrie';
const TOTP_PERIOD_SECONDS = 30;
/** Recovery codes made at confirmation. */
export const RECOVERY_CODE_COUNT = 10;
/** How long a sign-in's second step may wait for its code. */
export const LOGIN_CHALLENGE_TTL_SECONDS = 300;

/** Whether a user (a DashboardUser row) has a second factor in force. */
export const hasSecondFactor = (user: { totpConfirmedAt: Date | null }) => user.totpConfirmedAt !== null;

/**
 * The owner and admin roles, who manage the team: with REQUIRE_MFA_FOR_ADMINS
 * they may sign in without a second factor only to enrol one.
 */
export const mfaEnrolmentRequired = (user: { role: string; totpConfirmedAt: Date | null }, requireMfaForAdmins: boolean) =>
  requireMfaForAdmins && (user.role === 'owner' || user.role === 'admin') && !hasSecondFactor(user);

const sessionEnded = () => new AppError('unauthorized', 'This session has ended; sign in again');
const codeField = (message: string) => new AppError('invalid_request', `code: ${message}`, { details: { field: 'code' } });

/**
 * Starts (or starts again) TOTP enrolment: a new secret, sealed on the user's
 * row but not yet in force (confirmTotpEnrolment puts it in force). Refused
 * while a second factor is on: it must be turned off first.
 */
export async function startTotpEnrolment(db: DbOrTx, opts: { userId: number; encryptionKey: string }): Promise<{ secret: string; otpauth_url: string }> {
  const user = await db.dashboardUser.findUnique({ where: { id: opts.userId }, select: { email: true, disabledAt: true, totpConfirmedAt: true } });
  if (!user || user.disabledAt) throw sessionEnded();
  if (user.totpConfirmedAt) throw alreadyOn();
  const secret = generateSecret();
  const { count } = await db.dashboardUser.updateMany({
    where: { id: opts.userId, totpConfirmedAt: null },
    data: { totpSecretSealed: encryptSecret(secret, opts.encryptionKey), totpLastStep: null },
  });
  // Confirmed by another request in between.
  if (count === 0) throw alreadyOn();
  return { secret, otpauth_url: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret }) };
}

const alreadyOn = () =>
  new AppError('invalid_request', 'A second factor is already on; turn it off first (POST /auth/mfa/totp/disable)', {
    details: { reason: 'mfa_already_enabled' },
  });

/**
 * Puts the secret of startTotpEnrolment in force when `code` is one of its
 * codes, and makes the recovery codes, returned this once (any earlier ones
 * stop working). A wrong code changes nothing.
 */
export async function confirmTotpEnrolment(
  db: PrismaClient,
  opts: { userId: number; code: string; encryptionKey: string; now?: Date },
): Promise<{ kind: 'confirmed'; recoveryCodes: string[] } | { kind: 'wrong_code' }> {
  const now = opts.now ?? new Date();
  const user = await db.dashboardUser.findUnique({ where: { id: opts.userId }, select: { disabledAt: true, totpConfirmedAt: true, totpSecretSealed: true } });
  if (!user || user.disabledAt) throw sessionEnded();
  if (user.totpConfirmedAt) throw alreadyOn();
  if (!user.totpSecretSealed) {
    throw new AppError('invalid_request', 'No enrolment to confirm; start one with POST /auth/mfa/totp', { details: { reason: 'mfa_not_enrolling' } });
  }
  const step = totpStepOf(decryptSecret(user.totpSecretSealed, opts.encryptionKey), opts.code, now);
  if (step === null) return { kind: 'wrong_code' };
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const confirmed = await db.$transaction(async (tx) => {
    // The secret checked must still be the one on the row (not one of a newer enrolment).
    const { count } = await tx.dashboardUser.updateMany({
      where: { id: opts.userId, totpConfirmedAt: null, totpSecretSealed: user.totpSecretSealed },
      data: { totpConfirmedAt: now, totpLastStep: step },
    });
    if (count === 0) return false;
    await tx.mfaRecoveryCode.deleteMany({ where: { userId: opts.userId } });
    await tx.mfaRecoveryCode.createMany({ data: recoveryCodes.map((code) => ({ userId: opts.userId, codeHash: recoveryCodeHash(code) })) });
    return true;
  });
  if (!confirmed)
    throw new AppError('invalid_request', 'The enrolment changed meanwhile; start again with POST /auth/mfa/totp', {
      details: { reason: 'mfa_not_enrolling' },
    });
  return { kind: 'confirmed', recoveryCodes };
}

/** What a code entered for the second factor came to. */
export type SecondFactorCheck =
  | { kind: 'accepted'; via: 'totp' | 'recovery_code' }
  | {
      kind: 'refused';
      /** wrong_code: not a current code nor an unused recovery code; replayed: a TOTP code of a step already used; no_factor: the user has none. */
      reason: 'wrong_code' | 'replayed' | 'no_factor';
    };

/**
 * Checks a code against the user's second factor: a TOTP code of the current
 * time step or the one before or after (clock drift), or one of their unused
 * recovery codes, spent by this check. A TOTP code is accepted once: its time
 * step is recorded with a conditional update, so of two requests with one
 * code only one is accepted, and a code of that step or an earlier one is
 * refused afterwards.
 */
export async function checkSecondFactor(db: DbOrTx, opts: { userId: number; code: string; encryptionKey: string; now?: Date }): Promise<SecondFactorCheck> {
  const now = opts.now ?? new Date();
  const user = await db.dashboardUser.findUnique({
    where: { id: opts.userId },
    select: { totpConfirmedAt: true, totpSecretSealed: true, totpLastStep: true },
  });
  if (!user?.totpConfirmedAt || !user.totpSecretSealed) return { kind: 'refused', reason: 'no_factor' };
  const code = opts.code.replace(/\s+/g, '');
  if (/^\d{6}$/.test(code)) {
    const step = totpStepOf(decryptSecret(user.totpSecretSealed, opts.encryptionKey), code, now);
    if (step === null) return { kind: 'refused', reason: 'wrong_code' };
    if (user.totpLastStep !== null && step <= user.totpLastStep) return { kind: 'refused', reason: 'replayed' };
    const { count } = await db.dashboardUser.updateMany({
      where: { id: opts.userId, totpConfirmedAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return count === 1 ? { kind: 'accepted', via: 'totp' } : { kind: 'refused', reason: 'replayed' };
  }
  const recovery = normalizeRecoveryCode(code);
  if (recovery === null) return { kind: 'refused', reason: 'wrong_code' };
  const { count } = await db.mfaRecoveryCode.updateMany({
    where: { userId: opts.userId, codeHash: recoveryCodeHash(recovery), usedAt: null },
    data: { usedAt: now },
  });
  return count === 1 ? { kind: 'accepted', via: 'recovery_code' } : { kind: 'refused', reason: 'wrong_code' };
}

/** The API's answer to a refused code, on a session route (400 naming the field). */
export function secondFactorRefusal(check: Extract<SecondFactorCheck, { kind: 'refused' }>): AppError {
  switch (check.reason) {
    case 'no_factor':
      return new AppError('invalid_request', 'code: this user has no second factor', { details: { field: 'code', reason: 'mfa_not_enabled' } });
    case 'replayed':
      return codeField('was already used; wait for the next code');
    case 'wrong_code':
      return codeField('is incorrect');
  }
}

/** Turns the user's own second factor off, given a fresh code of it (or a recovery code). */
export async function turnOffSecondFactor(
  db: PrismaClient,
  opts: { userId: number; code: string; encryptionKey: string; now?: Date },
): Promise<SecondFactorCheck> {
  const check = await checkSecondFactor(db, opts);
  if (check.kind === 'accepted') await removeSecondFactor(db, opts.userId);
  return check;
}

/** The user's row without a second factor: secret, confirmation and last step cleared (spread into an update's data). */
export const NO_SECOND_FACTOR = { totpSecretSealed: null, totpConfirmedAt: null, totpLastStep: null } as const;

async function removeSecondFactor(db: PrismaClient, userId: number): Promise<void> {
  await db.$transaction([db.dashboardUser.updateMany({ where: { id: userId }, data: NO_SECOND_FACTOR }), db.mfaRecoveryCode.deleteMany({ where: { userId } })]);
}

/** The time step `code` is the TOTP code of, within one step of `now`'s, or null. */
function totpStepOf(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  // A tolerance of one period either side of `now` spans exactly the steps before and after its own.
  const result = verifySync({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: TOTP_PERIOD_SECONDS });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 80 random bits as 16 base32 characters in four groups: `abcd-efgh-ijkl-mnop`. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.match(/.{4}/g)!.join('-');
}

/** A recovery code as typed (any case, with or without dashes and spaces) in its canonical form, or null when it cannot be one. */
function normalizeRecoveryCode(raw: string): string | null {
  const code = raw.toLowerCase().replace(/[\s-]+/g, '');
  return /^[a-z2-7]{16}$/.test(code) ? code : null;
}

/** SHA-256 of the canonical code: 80 random bits need no slow hash. */
const recoveryCodeHash = (code: string) =>
  createHash('sha256')
    .update(normalizeRecoveryCode(code) ?? code)
    .digest('hex');

const CHALLENGE_ISSUER = 'cowrie';
const CHALLENGE_AUDIENCE = 'cowrie-mfa-challenge';
const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** The second step of a sign-in whose password was right: who, and until when. */
export interface LoginChallenge {
  userId: number;
  /** The user's session version at the password step: a sign-out, removal or password change since ends the challenge. */
  version: number;
  /** Spent at the sign-in it completes (spendLoginChallenge). */
  challengeId: string;
  expiresAt: Date;
}

/**
 * A sign-in challenge: an HS256 JWT for its own audience (never taken for a
 * session token, nor a session token for it), valid LOGIN_CHALLENGE_TTL_SECONDS.
 */
export async function issueLoginChallenge(user: { id: number; sessionVersion: number }, secret: string, now = new Date()): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ ver: user.sessionVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(user.id))
    .setIssuer(CHALLENGE_ISSUER)
    .setAudience(CHALLENGE_AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + LOGIN_CHALLENGE_TTL_SECONDS)
    .sign(keyOf(secret));
}

/** The challenge a token carries, or null when it is not one, or has expired at `now`. */
export async function readLoginChallenge(token: string, secret: string, now = new Date()): Promise<LoginChallenge | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      issuer: CHALLENGE_ISSUER,
      audience: CHALLENGE_AUDIENCE,
      algorithms: ['HS256'],
      currentDate: now,
    });
    const userId = Number(payload.sub);
    const version = Number(payload.ver);
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(version) || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
    return { userId, version, challengeId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}

/** The user a sign-in's second step signs in, when its code is accepted. */
export interface SignedInUser {
  id: number;
  workspaceId: number;
  sessionVersion: number;
  role: string;
  passwordChangeRequired: boolean;
  totpConfirmedAt: Date | null;
}

/**
 * The second step of a sign-in: the challenge's user, still current (not
 * removed, signed out or given a new password since the first step), and a
 * code of their second factor (checkSecondFactor). The caller then spends the
 * challenge (spendLoginChallenge) and issues the session.
 */
export async function checkLoginChallengeCode(
  db: DbOrTx,
  opts: { challenge: LoginChallenge; code: string; encryptionKey: string; now?: Date },
): Promise<{ kind: 'signed_in'; user: SignedInUser; via: 'totp' | 'recovery_code' } | { kind: 'ended' } | Extract<SecondFactorCheck, { kind: 'refused' }>> {
  const user = await db.dashboardUser.findUnique({
    where: { id: opts.challenge.userId },
    select: { id: true, workspaceId: true, sessionVersion: true, role: true, passwordChangeRequired: true, totpConfirmedAt: true, disabledAt: true },
  });
  if (!user || user.disabledAt || user.sessionVersion !== opts.challenge.version) return { kind: 'ended' };
  const check = await checkSecondFactor(db, { userId: user.id, code: opts.code, encryptionKey: opts.encryptionKey, now: opts.now });
  if (check.kind === 'refused') return check;
  const { disabledAt: _disabledAt, ...signedIn } = user;
  return { kind: 'signed_in', user: signedIn, via: check.via };
}

/** What the dashboard shows of a user's second factor. */
export interface SecondFactorStatus {
  totp_enabled: boolean;
  /** Unused recovery codes left (0 without a second factor). */
  recovery_codes_remaining: number;
  /** An owner or admin under REQUIRE_MFA_FOR_ADMINS without one: nothing else answers until it is on. */
  enrolment_required: boolean;
}

/** The user's unused recovery codes. */
export async function recoveryCodesRemaining(db: DbOrTx, userId: number): Promise<number> {
  return db.mfaRecoveryCode.count({ where: { userId, usedAt: null } });
}

export async function secondFactorStatus(db: DbOrTx, opts: { userId: number; requireMfaForAdmins: boolean }): Promise<SecondFactorStatus> {
  const user = await db.dashboardUser.findUnique({ where: { id: opts.userId }, select: { role: true, totpConfirmedAt: true } });
  if (!user) throw sessionEnded();
  const remaining = hasSecondFactor(user) ? await recoveryCodesRemaining(db, opts.userId) : 0;
  return {
    totp_enabled: hasSecondFactor(user),
    recovery_codes_remaining: remaining,
    enrolment_required: mfaEnrolmentRequired(user, opts.requireMfaForAdmins),
  };
}

/**
 * Spends a challenge once its code was accepted: true for the first caller,
 * false for any other (one challenge, one session). Kept in Redis until the
 * challenge expires.
 */
export async function spendLoginChallenge(redis: RedisClient, keyPrefix: string, challenge: LoginChallenge, now = new Date()): Promise<boolean> {
  const ttlMs = Math.max(1, challenge.expiresAt.getTime() - now.getTime());
  return (await redis.set(spentChallengeKey(keyPrefix, challenge), '1', 'PX', ttlMs, 'NX')) === 'OK';
}

/** Gives back a challenge spendLoginChallenge took whose code was then refused: the user may try another code with it. */
export async function releaseLoginChallenge(redis: RedisClient, keyPrefix: string, challenge: LoginChallenge): Promise<void> {
  await redis.del(spentChallengeKey(keyPrefix, challenge));
}

const spentChallengeKey = (keyPrefix: string, challenge: LoginChallenge) => `${keyPrefix}mfa-challenge-spent:${challenge.challengeId}`;

/**
 * Marks a session as stepped up at `now` (a code, or a password for a user
 * without a second factor, entered again): guarded routes accept it for
 * STEP_UP_SECONDS. The user's rows of sessions that have expired go at the
 * same time.
 */
export async function recordStepUp(db: DbOrTx, session: { sessionId: string | null; userId: number; expiresAt: Date }, now = new Date()): Promise<void> {
  if (!session.sessionId) throw new AppError('unauthorized', 'This session predates step-up; sign in again');
  await db.sessionStepUp.deleteMany({ where: { userId: session.userId, expiresAt: { lt: now } } });
  await db.sessionStepUp.upsert({
    where: { sessionId: session.sessionId },
    create: { sessionId: session.sessionId, userId: session.userId, steppedUpAt: now, expiresAt: session.expiresAt },
    update: { steppedUpAt: now },
  });
}

/**
 * When a session last proved its user: its sign-in (the token's issue) or its
 * last step-up, whichever is later. Fresh for `stepUpSeconds` after that.
 */
export function stepUpFresh(session: { issuedAt: Date }, steppedUpAt: Date | null, stepUpSeconds: number, now = new Date()): boolean {
  const last = Math.max(session.issuedAt.getTime(), steppedUpAt?.getTime() ?? 0);
  return now.getTime() - last < stepUpSeconds * 1000;
}

import { emailField, type Mode } from '@cowrie/core';
import type { DbOrTx } from '@cowrie/db';
import type { Session } from './sessions';
import type { UserRole } from './team';
import { workspaceForMode } from './workspaces';
import { hashPassword, needsRehash, passwordProblem, verifyPassword } from './passwords';
import { decoyPasswordHash } from './password-cost';
import { hasSecondFactor, mfaEnrolmentRequired, stepUpFresh } from './second-factor';

export interface CreateDashboardUserInput {
  workspaceId: number;
  email: string;
  password: string;
}

/** A new user's sign-in, checked, with its password hashed (prepareDashboardUser). */
export interface PreparedDashboardUser {
  workspaceId: number;
  email: string;
  passwordHash: string;
}

/**
 * Checks a new user's email and password and hashes the password: a few
 * hundred milliseconds of scrypt, seconds on a busy machine, so it is done
 * before any transaction opens (insertDashboardUser), never inside one
 * (where it held the transaction past Prisma's 5 s limit on a loaded machine).
 */
export async function prepareDashboardUser(input: CreateDashboardUserInput): Promise<PreparedDashboardUser> {
  const email = input.email.trim().toLowerCase();
  if (!emailField.safeParse(email).success) throw new Error(`invalid email: ${input.email}`);
  const problem = passwordProblem(input.password);
  if (problem) throw new Error(`password ${problem}`);
  return { workspaceId: input.workspaceId, email, passwordHash: await hashPassword(input.password) };
}

/** Stores a prepared user, an owner of the business named by its live workspace. */
export async function insertDashboardUser(db: DbOrTx, prepared: PreparedDashboardUser) {
  const { workspaceId, email, passwordHash } = prepared;
  // A user belongs to the business, named by its live workspace; the session chooses the mode.
  await workspaceForMode(db, workspaceId, 'live');
  const existing = await db.dashboardUser.findUnique({ where: { email }, select: { id: true } });
  if (existing) throw new Error(`a user with email ${email} already exists`);
  const user = await db.dashboardUser.create({ data: { workspaceId, email, passwordHash } });
  return { id: user.id, email: user.email, workspace_id: user.workspaceId };
}

/** prepareDashboardUser, then insertDashboardUser. */
export async function createDashboardUser(db: DbOrTx, input: CreateDashboardUserInput) {
  return insertDashboardUser(db, await prepareDashboardUser(input));
}

/** Returns the user when email and password match, else null (never says which failed). */
export async function checkDashboardCredentials(db: DbOrTx, email: string, password: string) {
  const user = await db.dashboardUser.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) {
    // An unknown email costs the same one hash as a wrong password.
    await verifyPassword(password, decoyPasswordHash());
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  // Checked after the password, so a disabled user's sign-in takes as long as anyone's.
  if (user.disabledAt) return null;
  // A hash made with weaker parameters than today's is remade while the password is at hand.
  if (needsRehash(user.passwordHash)) {
    await db.dashboardUser.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(password) } });
  }
  return user;
}

/** What currentSessionUser needs of the configuration. */
export interface SessionPolicy {
  /** REQUIRE_MFA_FOR_ADMINS: an owner or admin without a second factor may only enrol one. */
  requireMfaForAdmins: boolean;
  /** STEP_UP_SECONDS: how long a sign-in or a step-up lets a session make guarded changes. */
  stepUpSeconds: number;
}

/** Whether `password` is the current password of a user still active (a step-up of a user without a second factor). */
export async function checkOwnPassword(db: DbOrTx, userId: number, password: string): Promise<boolean> {
  const user = await db.dashboardUser.findUnique({ where: { id: userId }, select: { passwordHash: true, disabledAt: true } });
  if (!user || user.disabledAt) return false;
  return verifyPassword(password, user.passwordHash);
}

/**
 * The workspace a session acts on in `mode` (its business's live workspace or
 * that one's test side), or null when the session is no longer current: its
 * user is gone, disabled, moved, or has signed out (or been disabled) since
 * the token was issued. Read from Postgres on every dashboard request, so an
 * ended session (or a changed role) is in force from the next request on, on
 * every replica.
 */
export async function currentSessionUser(
  db: DbOrTx,
  session: Session,
  mode: Mode,
  policy: SessionPolicy,
  now = new Date(),
): Promise<CurrentSessionUser | null> {
  const user = await db.dashboardUser.findUnique({
    where: { id: session.userId },
    select: {
      workspaceId: true,
      email: true,
      sessionVersion: true,
      disabledAt: true,
      role: true,
      passwordChangeRequired: true,
      totpConfirmedAt: true,
      workspace: { select: { testWorkspace: { select: { id: true } } } },
      ...(session.sessionId ? { stepUps: { where: { sessionId: session.sessionId }, select: { steppedUpAt: true } } } : {}),
    },
  });
  if (!user || user.disabledAt || user.workspaceId !== session.workspaceId || user.sessionVersion !== session.version) return null;
  const workspaceId = mode === 'live' ? user.workspaceId : (user.workspace.testWorkspace?.id ?? null);
  if (workspaceId === null) return null;
  const steppedUpAt = ('stepUps' in user ? user.stepUps[0]?.steppedUpAt : undefined) ?? null;
  return {
    workspaceId,
    email: user.email,
    role: user.role as UserRole,
    passwordChangeRequired: user.passwordChangeRequired,
    mfaEnabled: hasSecondFactor(user),
    mfaEnrolmentRequired: mfaEnrolmentRequired(user, policy.requireMfaForAdmins),
    steppedUp: stepUpFresh(session, steppedUpAt, policy.stepUpSeconds, now),
  };
}

/** What a current session may do: its workspace (of the mode chosen), its user's role, and what it must do first. */
export interface CurrentSessionUser {
  workspaceId: number;
  /** The user's email (who acted, in the audit trail). */
  email: string;
  role: UserRole;
  /** Signed in with a one-time password not yet changed: only the password change (and sign-out) answer. */
  passwordChangeRequired: boolean;
  /** The user has a second factor (they step up with a code; without one, with their password). */
  mfaEnabled: boolean;
  /** An owner or admin without a second factor under REQUIRE_MFA_FOR_ADMINS: only enrolment (and sign-out) answer. */
  mfaEnrolmentRequired: boolean;
  /** Signed in or stepped up within STEP_UP_SECONDS: the guarded changes (money, keys, team, webhook URLs) answer. */
  steppedUp: boolean;
}

/** Ends every session of a user (sign-out): tokens issued before no longer work. */
export async function endUserSessions(db: DbOrTx, userId: number): Promise<void> {
  await db.dashboardUser.updateMany({ where: { id: userId }, data: { sessionVersion: { increment: 1 } } });
}

/** A user's business (its live workspace) and email; null when there is no such user. */
export async function dashboardUserIdentity(db: DbOrTx, userId: number): Promise<{ workspaceId: number; email: string } | null> {
  return db.dashboardUser.findUnique({ where: { id: userId }, select: { workspaceId: true, email: true } });
}

/** Disables a user (an operator's action): sign-in and every session are refused from now on. */
export async function disableDashboardUser(db: DbOrTx, userId: number) {
  const { count } = await db.dashboardUser.updateMany({ where: { id: userId }, data: { disabledAt: new Date(), sessionVersion: { increment: 1 } } });
  if (count === 0) throw new Error(`user ${userId} does not exist`);
  return { id: userId, disabled: true };
}

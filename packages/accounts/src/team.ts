import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, emailField } from '@cowrie/core';
import type { DbOrTx, Prisma, PrismaClient } from '@cowrie/db';
import { ZNewPassword, hashPassword, verifyPassword } from './passwords';
import { NO_SECOND_FACTOR } from './second-factor';
import { listApiKeysCreatedBy, revokeApiKeysCreatedBy, type ApiKeyView } from './api-keys';
import { ONE_TIME_PASSWORD_TTL_HOURS, issuePasswordLink, oneTimePasswordExpired, type IssuedPasswordLink } from './password-links';

export const ONE_TIME_PASSWORD_EXPIRED_MESSAGE =
  'This one-time password has expired (it lasts 72 hours, and ends when whoever invited you is removed); ask an owner or admin to invite you again';

/**
 * owner: made with the operator CLI; admin: invited, manages the team like
 * an owner but cannot remove one; member: invited, uses the dashboard but does
 * not manage the team.
 */
export const USER_ROLES = ['owner', 'admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The roles a dashboard invitation may give (owners come from the CLI). */
export const INVITED_ROLES = ['admin', 'member'] as const;

/** Whether a role manages the team (invites and removes users). */
export const managesTeam = (role: UserRole) => role === 'owner' || role === 'admin';

/**
 * Where a user stands in the business of `workspaceId` (either side, live or
 * test), as of now: `manager` (an active owner or admin: who manages the team
 * and sends, asks for and approves dashboard payouts), `member`, or `removed`
 * (removed, disabled by the operator, or no user of this business).
 */
export async function teamStanding(db: DbOrTx, opts: { workspaceId: number; userId: number }): Promise<'manager' | 'member' | 'removed'> {
  const user = await db.dashboardUser.findFirst({
    where: { id: opts.userId, disabledAt: null, workspace: { OR: [{ id: opts.workspaceId }, { testWorkspace: { id: opts.workspaceId } }] } },
    select: { role: true },
  });
  if (!user) return 'removed';
  return managesTeam(user.role as UserRole) ? 'manager' : 'member';
}

export interface TeamMemberView {
  id: number;
  email: string;
  role: UserRole;
  /** removed (or disabled by an operator) users are kept, refused at sign-in. */
  status: 'active' | 'removed';
  /** Signed in with a one-time password not yet changed (or never signed in). */
  password_change_required: boolean;
  /** Has a second factor (TOTP) in force. */
  mfa_enabled: boolean;
  /** Who invited them; null for owners the operator CLI made. */
  invited_by_user_id: number | null;
  /** While password_change_required: when the one-time password stops signing in; else null. */
  one_time_password_expires_at: string | null;
  created_at: string;
}

interface UserRow {
  id: number;
  email: string;
  role: string;
  disabledAt: Date | null;
  passwordChangeRequired: boolean;
  totpConfirmedAt: Date | null;
  invitedByUserId: number | null;
  oneTimePasswordExpiresAt: Date | null;
  createdAt: Date;
}

function teamMemberView(row: UserRow): TeamMemberView {
  return {
    id: row.id,
    email: row.email,
    role: row.role as UserRole,
    status: row.disabledAt ? 'removed' : 'active',
    password_change_required: row.passwordChangeRequired,
    mfa_enabled: row.totpConfirmedAt !== null,
    invited_by_user_id: row.invitedByUserId,
    one_time_password_expires_at: row.passwordChangeRequired ? (row.oneTimePasswordExpiresAt?.toISOString() ?? null) : null,
    created_at: row.createdAt.toISOString(),
  };
}

const userNotFound = () => new AppError('not_found', 'No such user in this workspace');

/** The users of a business (named by its live workspace), oldest first. */
export async function listTeam(db: DbOrTx, workspaceId: number): Promise<TeamMemberView[]> {
  const rows = await db.dashboardUser.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
  return rows.map(teamMemberView);
}

export const ZInviteUserRequest = z.object({
  email: emailField,
  role: z.enum(INVITED_ROLES).meta({ description: 'admin (manages the team) or member' }),
});

/** A one-time password: 18 random bytes, 24 URL-safe characters. */
const oneTimePassword = () => randomBytes(18).toString('base64url');

/** How an invitation reaches its user: a one-time password the inviter passes on, or a link emailed to them. */
export type InvitationDelivery = 'one_time_password' | 'email';

export type Invitation =
  { kind: 'one_time_password'; user: TeamMemberView; one_time_password: string } | { kind: 'email'; user: TeamMemberView; link: IssuedPasswordLink };

/**
 * Adds a user to the business. With a one-time password (returned this
 * once), their first sign-in must choose a new one (changeOwnPassword) before
 * any other dashboard route answers. By email, the answer holds the token of
 * a link to choose their password (usePasswordLink) for the caller to email,
 * and the user has a random password nobody knows. Either lasts 72 hours and
 * dies when the inviter is removed. An email already in use (in any business)
 * is refused without saying whose.
 */
export async function inviteUser(
  db: PrismaClient,
  opts: {
    workspaceId: number;
    email: string;
    role: (typeof INVITED_ROLES)[number];
    invitedByUserId: number;
    delivery?: InvitationDelivery;
    now?: Date;
  },
): Promise<Invitation> {
  const email = opts.email.trim().toLowerCase();
  const now = opts.now ?? new Date();
  const password = oneTimePassword();
  const passwordHash = await hashPassword(password);
  const created = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`dashboard-user:${email}`}))`;
    if (await tx.dashboardUser.findUnique({ where: { email }, select: { id: true } })) return null;
    const expiresAt = new Date(now.getTime() + ONE_TIME_PASSWORD_TTL_HOURS * 3600_000);
    const user = await tx.dashboardUser.create({
      data: {
        workspaceId: opts.workspaceId,
        email,
        passwordHash,
        role: opts.role,
        passwordChangeRequired: true,
        invitedByUserId: opts.invitedByUserId,
        oneTimePasswordExpiresAt: expiresAt,
      },
    });
    const link =
      opts.delivery === 'email'
        ? await issuePasswordLink(tx, { userId: user.id, sessionVersion: user.sessionVersion, purpose: 'invitation', expiresAt, now })
        : null;
    return { user, link };
  });
  if (!created) throw new AppError('invalid_request', 'email: a dashboard user with this email already exists', { details: { field: 'email' } });
  const user = teamMemberView(created.user);
  return created.link ? { kind: 'email', user, link: created.link } : { kind: 'one_time_password', user, one_time_password: password };
}

/**
 * Takes the business's team lock (role changes and removals, one at a time)
 * and reads the actor again under it: a session whose user was removed or
 * demoted meanwhile acts with what they are now. An actor removed meanwhile
 * is refused (their session has ended).
 */
async function lockTeam(tx: Prisma.TransactionClient, workspaceId: number, actorId: number) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`dashboard-team:${workspaceId}`}))`;
  const actor = await tx.dashboardUser.findFirst({ where: { id: actorId, workspaceId, disabledAt: null }, select: { role: true } });
  if (!actor) throw new AppError('unauthorized', 'This session has ended; sign in again');
  return actor;
}

/**
 * Changes another user's role. Owners change any role; admins move users
 * between admin and member, but neither make nor change an owner. Nobody
 * changes their own, and a removed user keeps theirs. The business always
 * keeps an owner: only an owner demotes one, never themselves, and under one
 * lock per business (lockTeam) the actor's role is read again, so of two
 * owners demoting each other at once the second is no longer an owner.
 * Takes effect from the user's next request (roles are read on every one).
 * `from` equal to `to`: nothing changed.
 */
export async function changeUserRole(
  db: PrismaClient,
  opts: {
    workspaceId: number;
    actor: { userId: number };
    id: number;
    role: UserRole;
    /** Runs in the change's transaction once the role changed (not when it was already `role`), so both commit or neither. */
    alsoInTransaction?: (tx: Prisma.TransactionClient, changed: { user: TeamMemberView; from: UserRole }) => Promise<void>;
  },
): Promise<{ user: TeamMemberView; from: UserRole }> {
  if (opts.id === opts.actor.userId) {
    throw new AppError('invalid_request', 'You cannot change your own role; another owner or admin can', { details: { field: 'id' } });
  }
  return db.$transaction(async (tx) => {
    const actor = await lockTeam(tx, opts.workspaceId, opts.actor.userId);
    if (!managesTeam(actor.role as UserRole)) {
      throw new AppError('insufficient_scope', 'Only owners and admins change roles', { details: { required_role: 'admin' } });
    }
    const target = await tx.dashboardUser.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId } });
    if (!target) throw userNotFound();
    if (target.disabledAt) throw new AppError('invalid_request', 'This user was removed; invite them again under another email', { details: { field: 'id' } });
    const from = target.role as UserRole;
    if ((from === 'owner' || opts.role === 'owner') && actor.role !== 'owner') {
      throw new AppError('insufficient_scope', 'Only an owner makes an owner or changes the role of one', { details: { required_role: 'owner' } });
    }
    if (from === opts.role) return { user: teamMemberView(target), from };
    const changed = { user: teamMemberView(await tx.dashboardUser.update({ where: { id: target.id }, data: { role: opts.role } })), from };
    await opts.alsoInTransaction?.(tx, changed);
    return changed;
  });
}

export const ZChangeRoleRequest = z.object({
  role: z.enum(USER_ROLES).meta({ description: 'owner (only an owner gives or takes it), admin or member' }),
});

/** A removed user, with the API keys they made (after the removal: revoked ones too). */
export type RemovedUserView = TeamMemberView & { api_keys: ApiKeyView[] };

/**
 * Removes a user from the business: they can no longer sign in, and every
 * session of theirs ends at once; the one-time passwords of the invitations
 * they made that were not yet replaced end too. With `revokeApiKeys`, every
 * key they made that still works is revoked in the same transaction (then
 * announceApiKeyChange). Nobody removes themselves (sign out instead), and an
 * admin cannot remove an owner. Removing a removed user again only revokes
 * (when asked).
 */
export async function removeUser(
  db: PrismaClient,
  opts: {
    workspaceId: number;
    actor: { userId: number; role: UserRole };
    id: number;
    revokeApiKeys?: boolean;
    now?: Date;
    /** Runs in the removal's transaction once the user is removed (the audit row, so both commit or neither). */
    alsoInTransaction?: (tx: Prisma.TransactionClient, removed: RemovedUserView, revokedApiKeys: number) => Promise<void>;
  },
): Promise<RemovedUserView & { revokedApiKeys: number }> {
  const now = opts.now ?? new Date();
  const target = await db.dashboardUser.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId } });
  if (!target) throw userNotFound();
  if (target.id === opts.actor.userId) {
    throw new AppError('invalid_request', 'You cannot remove yourself; another owner or admin can', { details: { field: 'id' } });
  }
  const ownerOnly = () => new AppError('insufficient_scope', 'Only an owner can remove an owner', { details: { required_role: 'owner' } });
  if (target.role === 'owner' && opts.actor.role !== 'owner') throw ownerOnly();
  return db.$transaction(async (tx) => {
    // Of two owners removing each other at once, the second finds itself removed: the business keeps an owner.
    const actor = await lockTeam(tx, opts.workspaceId, opts.actor.userId);
    if (!managesTeam(actor.role as UserRole)) {
      throw new AppError('insufficient_scope', 'Only owners and admins remove users', { details: { required_role: 'admin' } });
    }
    if (target.role === 'owner' && actor.role !== 'owner') throw ownerOnly();
    let removed = target;
    if (!target.disabledAt) {
      const [row] = await tx.dashboardUser.updateManyAndReturn({
        where: { id: target.id, workspaceId: opts.workspaceId },
        data: { disabledAt: now, sessionVersion: { increment: 1 } },
      });
      if (!row) throw userNotFound();
      removed = row;
      // Their invitations die with them: a one-time password not yet replaced stops signing in, and its sessions end.
      await tx.dashboardUser.updateMany({
        where: { invitedByUserId: target.id, passwordChangeRequired: true, disabledAt: null },
        data: { oneTimePasswordExpiresAt: now, sessionVersion: { increment: 1 } },
      });
    }
    const revokedApiKeys = opts.revokeApiKeys ? await revokeApiKeysCreatedBy(tx, target.id, now) : 0;
    const view = { ...teamMemberView(removed), api_keys: await listApiKeysCreatedBy(tx, target.id, now) };
    await opts.alsoInTransaction?.(tx, view, revokedApiKeys);
    return { ...view, revokedApiKeys };
  });
}

/** The API keys a user of the business made (both modes, revoked ones too), newest first; not_found for anyone else's user. */
export async function listUserApiKeys(db: DbOrTx, opts: { workspaceId: number; id: number }): Promise<ApiKeyView[]> {
  const user = await db.dashboardUser.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select: { id: true } });
  if (!user) throw userNotFound();
  return listApiKeysCreatedBy(db, user.id);
}

/**
 * An owner resets another user's second factor (a lost phone): it goes with
 * its recovery codes, and every session of that user ends. The user then
 * signs in with their password alone (as an owner or admin under
 * REQUIRE_MFA_FOR_ADMINS, only to enrol again). Nobody resets their own: they
 * turn it off with a code of it.
 */
export async function resetSecondFactor(
  db: PrismaClient,
  opts: { workspaceId: number; actor: { userId: number; role: UserRole }; id: number },
): Promise<{ user: TeamMemberView; hadSecondFactor: boolean }> {
  if (opts.actor.role !== 'owner') {
    throw new AppError('insufficient_scope', "Only an owner can reset another user's second factor", { details: { required_role: 'owner' } });
  }
  if (opts.id === opts.actor.userId) {
    throw new AppError('invalid_request', 'Turn your own second factor off with a code of it (POST /auth/mfa/totp/disable)', { details: { field: 'id' } });
  }
  const target = await db.dashboardUser.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId } });
  if (!target) throw userNotFound();
  const [reset] = await db.$transaction([
    db.dashboardUser.updateManyAndReturn({
      where: { id: target.id, workspaceId: opts.workspaceId },
      data: { ...NO_SECOND_FACTOR, sessionVersion: { increment: 1 } },
    }),
    db.mfaRecoveryCode.deleteMany({ where: { userId: target.id } }),
  ]);
  if (!reset[0]) throw userNotFound();
  return { user: teamMemberView(reset[0]), hadSecondFactor: target.totpConfirmedAt !== null };
}

export const ZChangePasswordRequest = z.object({
  current_password: z.string().min(1).max(200),
  new_password: ZNewPassword,
});

/** The email a dashboard user signs in with (whose sign-in limits a password change shares); null when the user is gone or switched off. */
export async function dashboardUserEmail(db: DbOrTx, userId: number): Promise<string | null> {
  const user = await db.dashboardUser.findUnique({ where: { id: userId }, select: { email: true, disabledAt: true } });
  return user && !user.disabledAt ? user.email : null;
}

/**
 * Changes the signed-in user's password (the one-time one included): the
 * current one must match and the new one differ from it. Every session of
 * theirs ends; the caller issues a new one with the returned version.
 */
export async function changeOwnPassword(
  db: DbOrTx,
  opts: { userId: number; currentPassword: string; newPassword: string },
): Promise<{ id: number; workspaceId: number; sessionVersion: number; role: string; passwordChangeRequired: boolean; totpConfirmedAt: Date | null }> {
  const user = await db.dashboardUser.findUnique({ where: { id: opts.userId } });
  if (!user || user.disabledAt) throw new AppError('unauthorized', 'This session has ended; sign in again');
  if (!(await verifyPassword(opts.currentPassword, user.passwordHash))) {
    throw new AppError('invalid_request', 'current_password: is incorrect', { details: { field: 'current_password' } });
  }
  if (oneTimePasswordExpired(user)) {
    throw new AppError('invalid_request', `current_password: ${ONE_TIME_PASSWORD_EXPIRED_MESSAGE}`, { details: { field: 'current_password' } });
  }
  if (opts.newPassword === opts.currentPassword) {
    throw new AppError('invalid_request', 'new_password: must differ from the current password', { details: { field: 'new_password' } });
  }
  const [changed] = await db.dashboardUser.updateManyAndReturn({
    where: { id: user.id, sessionVersion: user.sessionVersion },
    data: {
      passwordHash: await hashPassword(opts.newPassword),
      passwordChangeRequired: false,
      oneTimePasswordExpiresAt: null,
      sessionVersion: { increment: 1 },
    },
  });
  // Another change (or a sign-out) won the race: this session has ended.
  if (!changed) throw new AppError('unauthorized', 'This session has ended; sign in again');
  const { id, workspaceId, sessionVersion, role, passwordChangeRequired, totpConfirmedAt } = changed;
  return { id, workspaceId, sessionVersion, role, passwordChangeRequired, totpConfirmedAt };
}

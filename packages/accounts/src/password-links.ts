import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@cowrie/core';
import type { Prisma, PrismaClient } from '@cowrie/db';
import { ZNewPassword, hashPassword } from './passwords';

/**
 * Links emailed to a dashboard user to choose a password: a reset of a
 * forgotten one, or an invitation (in place of a one-time password where the
 * deployment sends email). The token is 256 random bits in the link; only its
 * SHA-256 is stored. A link works once, until it expires, and only while its
 * user's sessionVersion is the one it was made with: a password change, a
 * removal, a sign-out or a second-factor reset since ends it. A newer link of
 * the same purpose ends the older ones.
 */
export const PASSWORD_LINK_PURPOSES = ['reset', 'invitation'] as const;
export type PasswordLinkPurpose = (typeof PASSWORD_LINK_PURPOSES)[number];

/** How long an invitation's one-time password signs in (NIST SP 800-63B: a short-lived secret). */
export const ONE_TIME_PASSWORD_TTL_HOURS = 72;

/**
 * Whether a user's one-time password (an invitation not yet replaced by a
 * password of their own) has expired: 72 hours after the invitation, or at
 * once when the inviter was removed.
 */
export const oneTimePasswordExpired = (user: { passwordChangeRequired: boolean; oneTimePasswordExpiresAt: Date | null }, now = new Date()): boolean =>
  user.passwordChangeRequired && user.oneTimePasswordExpiresAt !== null && user.oneTimePasswordExpiresAt <= now;

/** How long a password reset link works (NIST SP 800-63B: a short-lived secret sent out of band). */
export const PASSWORD_RESET_TTL_MINUTES = 30;

/** The token's stored form. */
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new link's token: 32 random bytes, 43 URL-safe characters. */
const newToken = () => randomBytes(32).toString('base64url');

/** A link just made: its token (for the email only, never stored or logged) and when it stops working. */
export interface IssuedPasswordLink {
  token: string;
  expiresAt: Date;
}

/**
 * Makes a link of `purpose` for a user, ending their older unused ones of the
 * same purpose. Runs in the caller's transaction (an invitation makes the user
 * and its link together).
 */
export async function issuePasswordLink(
  tx: Prisma.TransactionClient,
  opts: { userId: number; sessionVersion: number; purpose: PasswordLinkPurpose; expiresAt: Date; now: Date },
): Promise<IssuedPasswordLink> {
  const token = newToken();
  await tx.passwordLink.updateMany({ where: { userId: opts.userId, purpose: opts.purpose, usedAt: null }, data: { usedAt: opts.now } });
  await tx.passwordLink.create({
    data: { userId: opts.userId, purpose: opts.purpose, tokenHash: tokenHash(token), sessionVersion: opts.sessionVersion, expiresAt: opts.expiresAt },
  });
  return { token, expiresAt: opts.expiresAt };
}

/** Who a reset link was made for (the email goes to them). */
export interface PasswordResetRecipient {
  userId: number;
  workspaceId: number;
  email: string;
}

/**
 * A reset link for the user with `email`, or null when there is none who may
 * reset: unknown, removed, or an invitation that died (expired, or its inviter
 * removed). The caller answers both the same way, and must not let its time
 * tell them apart (the gateway does this after answering).
 */
export async function issuePasswordReset(
  db: PrismaClient,
  opts: { email: string; now?: Date },
): Promise<(IssuedPasswordLink & { user: PasswordResetRecipient }) | null> {
  const now = opts.now ?? new Date();
  const user = await db.dashboardUser.findUnique({ where: { email: opts.email.trim().toLowerCase() } });
  if (!user || user.disabledAt || oneTimePasswordExpired(user, now)) return null;
  const link = await db.$transaction((tx) =>
    issuePasswordLink(tx, {
      userId: user.id,
      sessionVersion: user.sessionVersion,
      purpose: 'reset',
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MINUTES * 60_000),
      now,
    }),
  );
  return { ...link, user: { userId: user.id, workspaceId: user.workspaceId, email: user.email } };
}

export const ZUsePasswordLinkRequest = z.object({
  token: z.string().min(1).max(200).meta({ description: 'The token of the emailed link (its `token` query parameter)' }),
  password: ZNewPassword,
});

const LINK_REFUSED = 'This link has expired or was already used; ask for a new one';

/**
 * Sets a user's password with a link's token (a reset or an invitation): the
 * link is spent, every other link of theirs ends, and so does every session
 * of theirs. Refused alike (400, field token) when the token is unknown,
 * used, expired, or its user changed since (password, removal, sign-out),
 * or when the invitation died with its inviter. The caller records it and
 * sends the user to sign in (a link is never a session: a second factor
 * still asks for its code).
 */
export async function usePasswordLink(
  db: PrismaClient,
  opts: { token: string; password: string; now?: Date },
): Promise<{ purpose: PasswordLinkPurpose; user: PasswordResetRecipient }> {
  const now = opts.now ?? new Date();
  const refused = () => new AppError('invalid_request', `token: ${LINK_REFUSED}`, { details: { field: 'token' } });
  const link = await db.passwordLink.findUnique({ where: { tokenHash: tokenHash(opts.token) }, include: { user: true } });
  if (!link || link.usedAt || link.expiresAt <= now) throw refused();
  const { user } = link;
  if (user.disabledAt || user.sessionVersion !== link.sessionVersion || oneTimePasswordExpired(user, now)) throw refused();
  const passwordHash = await hashPassword(opts.password);
  await db.$transaction(async (tx) => {
    // Both conditional: of two uses at once, or a use racing a sign-out, one wins and the other is refused.
    const spent = await tx.passwordLink.updateMany({ where: { id: link.id, usedAt: null }, data: { usedAt: now } });
    const changed = await tx.dashboardUser.updateMany({
      where: { id: user.id, sessionVersion: link.sessionVersion, disabledAt: null },
      data: { passwordHash, passwordChangeRequired: false, oneTimePasswordExpiresAt: null, sessionVersion: { increment: 1 } },
    });
    if (spent.count !== 1 || changed.count !== 1) throw refused();
    // Every other link of theirs ends with the password it was made to replace.
    await tx.passwordLink.updateMany({ where: { userId: user.id, usedAt: null }, data: { usedAt: now } });
  });
  return { purpose: link.purpose as PasswordLinkPurpose, user: { userId: user.id, workspaceId: user.workspaceId, email: user.email } };
}

/** The dashboard page a link opens, under DASHBOARD_URL. */
const LINK_PAGES: Record<PasswordLinkPurpose, string> = { reset: 'reset-password', invitation: 'accept-invitation' };

/**
 * The email that carries a link: its subject and text, the link in it. The
 * token is in the link's query; the dashboard page that opens it sends it in a
 * request body (never in a URL the server logs).
 */
export function passwordLinkEmail(
  dashboardUrl: string,
  purpose: PasswordLinkPurpose,
  token: string,
  about: { role?: string } = {},
): { subject: string; text: string } {
  const url = `${dashboardUrl.replace(/\/+$/, '')}/${LINK_PAGES[purpose]}?token=${encodeURIComponent(token)}`;
  if (purpose === 'reset') {
    return {
      subject: 'Reset your Cowrie dashboard password',
      text:
        `Someone (we hope you) asked to reset the password of your Cowrie dashboard account.\n\n` +
        `Choose a new password here:\n${url}\n\n` +
        `The link works once, for ${PASSWORD_RESET_TTL_MINUTES} minutes; choosing a password signs you out everywhere. ` +
        `If you did not ask, ignore this email: your password stays as it is.\n`,
    };
  }
  return {
    subject: 'You are invited to the Cowrie dashboard',
    text:
      `You have been added to a Cowrie dashboard${about.role ? ` as ${about.role === 'admin' ? 'an admin' : `a ${about.role}`}` : ''}.\n\n` +
      `Choose your password here:\n${url}\n\n` +
      `The link works once, for ${ONE_TIME_PASSWORD_TTL_HOURS} hours. Then sign in with this email address and your password.\n`,
  };
}

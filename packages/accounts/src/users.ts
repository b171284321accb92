import type { DbOrTx } from '@cowrie/db';
import { hashPassword, needsRehash, passwordProblem, verifyPassword } from './passwords';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateDashboardUserInput {
  workspaceId: number;
  email: string;
  password: string;
}

export async function createDashboardUser(db: DbOrTx, input: CreateDashboardUserInput) {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new Error(`invalid email: ${input.email}`);
  const problem = passwordProblem(input.password);
  if (problem) throw new Error(`password ${problem}`);
  const workspace = await db.workspace.findUnique({ where: { id: input.workspaceId }, select: { id: true } });
  if (!workspace) throw new Error(`workspace ${input.workspaceId} does not exist`);
  const existing = await db.dashboardUser.findUnique({ where: { email }, select: { id: true } });
  if (existing) throw new Error(`a user with email ${email} already exists`);
  const user = await db.dashboardUser.create({
    data: { workspaceId: input.workspaceId, email, passwordHash: await hashPassword(input.password) },
  });
  return { id: user.id, email: user.email, workspace_id: user.workspaceId };
}

// A hash of a random password, verified when the email is unknown so that an
// unknown email takes as long as a wrong password.
let decoyHash: Promise<string> | undefined;

/** Returns the user when email and password match, else null (never says which failed). */
export async function checkDashboardCredentials(db: DbOrTx, email: string, password: string) {
  const user = await db.dashboardUser.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) {
    decoyHash ??= hashPassword(`decoy-${Math.random()}`);
    await verifyPassword(password, await decoyHash);
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  // A hash made with weaker parameters than today's is remade while the password is at hand.
  if (needsRehash(user.passwordHash)) {
    await db.dashboardUser.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(password) } });
  }
  return user;
}

// Risk: sign-in telling a known email from an unknown one by its answer or by
// the work it does (an unknown email, the first of a process above all,
// hashing more or less than a wrong password does), and a disabled user
// told apart from a wrong password; a new user's password hashed inside a
// transaction, holding it (and a connection) for the hash's whole time.
import { createTestEnv, createUserFor, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { passwordHashesInFlight, verifyPassword } from '../src/passwords';
import { checkDashboardCredentials, insertDashboardUser, prepareDashboardUser } from '../src/users';
import { teamStanding } from '../src/team';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

/** How many password hashes `check` ran, and what it answered. */
async function hashesOf<T>(check: () => Promise<T>): Promise<{ hashes: number; answer: T }> {
  const before = passwordHashesInFlight().started;
  const answer = await check();
  return { hashes: passwordHashesInFlight().started - before, answer };
}

test('an unknown email costs exactly one hash, as a wrong password does: the first of the process included', async () => {
  // This file's first check of an unknown email: no decoy is made on the way.
  expect(await hashesOf(() => checkDashboardCredentials(env.db, 'nobody.known@example.com', 'a guess'))).toEqual({ hashes: 1, answer: null });
  expect(await hashesOf(() => checkDashboardCredentials(env.db, 'nobody.else@example.com', 'a guess'))).toEqual({ hashes: 1, answer: null });

  const { workspace } = await createWorkspaceWithKey(env.db);
  const user = await createUserFor(env.db, workspace.id, 'somebody.known@example.com');
  expect(await hashesOf(() => checkDashboardCredentials(env.db, user.email, 'a guess'))).toEqual({ hashes: 1, answer: null });
  // A disabled user's right password: the same hash, the same null.
  await env.db.dashboardUser.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
  expect(await hashesOf(() => checkDashboardCredentials(env.db, user.email, user.password))).toEqual({ hashes: 1, answer: null });
});

test('a new user is hashed before the transaction that stores it: the insert starts no hash, and stores the prepared one', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const password = 'a long enough passphrase for this test';
  const prepared = await hashesOf(() => prepareDashboardUser({ workspaceId: workspace.id, email: ' New.Owner@Example.com ', password }));
  expect(prepared.hashes).toBe(1);
  expect(prepared.answer).toMatchObject({ workspaceId: workspace.id, email: 'new.owner@example.com' });
  const stored = await hashesOf(() => env.db.$transaction((tx) => insertDashboardUser(tx, prepared.answer)));
  expect(stored).toEqual({ hashes: 0, answer: { id: expect.any(Number), email: 'new.owner@example.com', workspace_id: workspace.id } });
  const row = await env.db.dashboardUser.findUniqueOrThrow({ where: { id: stored.answer.id } });
  expect(row.passwordHash).toBe(prepared.answer.passwordHash);
  expect(await verifyPassword(password, row.passwordHash)).toBe(true);
  // Its checks come first, before any hash: a bad email or a weak password costs none.
  expect(
    (await hashesOf(() => prepareDashboardUser({ workspaceId: workspace.id, email: 'not an email', password }).catch((e: Error) => e.message))).hashes,
  ).toBe(0);
  expect(
    (await hashesOf(() => prepareDashboardUser({ workspaceId: workspace.id, email: 'b@example.com', password: 'short' }).catch((e: Error) => e.message)))
      .hashes,
  ).toBe(0);
});

test("a user's standing in a business, read from either side: an active owner or admin manages it; a member, a removed user or another business's do not", async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const other = await createWorkspaceWithKey(env.db);
  const sides = [workspace.id, workspace.test_workspace_id];
  const user = async (role: string, email: string) => {
    const made = await createUserFor(env.db, workspace.id, email);
    await env.db.dashboardUser.update({ where: { id: made.id }, data: { role } });
    return made.id;
  };
  const owner = await user('owner', 'standing.owner@example.com');
  const admin = await user('admin', 'standing.admin@example.com');
  const member = await user('member', 'standing.member@example.com');
  const removed = await user('admin', 'standing.removed@example.com');
  await env.db.dashboardUser.update({ where: { id: removed }, data: { disabledAt: new Date() } });
  for (const workspaceId of sides) {
    expect(await teamStanding(env.db, { workspaceId, userId: owner })).toBe('manager');
    expect(await teamStanding(env.db, { workspaceId, userId: admin })).toBe('manager');
    expect(await teamStanding(env.db, { workspaceId, userId: member })).toBe('member');
    expect(await teamStanding(env.db, { workspaceId, userId: removed })).toBe('removed');
  }
  expect(await teamStanding(env.db, { workspaceId: other.workspace.id, userId: owner })).toBe('removed');
  expect(await teamStanding(env.db, { workspaceId: other.workspace.test_workspace_id, userId: admin })).toBe('removed');
});

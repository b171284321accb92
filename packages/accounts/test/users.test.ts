// Risk: sign-in telling a known email from an unknown one by its answer or by
// the work it does (an unknown email, the first of a process above all,
// hashing more or less than a wrong password does), and a disabled user
// told apart from a wrong password; a new user's password hashed inside a
// transaction, holding it (and a connection) for the hash's whole time.
import { createTestEnv, createUserFor, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { passwordHashesInFlight, verifyPassword } from '../src/passwords';
import { checkDashboardCredentials, insertDashboardUser, prepareDashboardUser } from '../src/users';

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

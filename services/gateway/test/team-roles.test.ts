// Risk: a role change that a member or an admin can use to make an owner, that
// skips the step-up, that leaves a business without an owner (two owners
// demoting each other at once), that is not audited, or that is not in force
// at the user's next request.
import { rememberSecret } from '@cowrie/testing';
import { call, sessionSignedInAgo, signInNewWorkspace, startTestGateway } from '../testing';

// Each test hashes several passwords (scrypt, memory-hard on purpose): on a loaded machine that takes longer than jest's default.
jest.setTimeout(120_000);

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let owner: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
  owner = await signInNewWorkspace(gw, 'Roles');
});
afterAll(() => gw.close());

const setRole = (token: string, id: number, role: unknown) => call(gw.url, 'PUT', `/users/${id}/role`, { token, body: { role } });

/** Invites `email` as `role` (by `inviter`, the file's owner unless given) and signs them in with a password of their own: their id and a session. */
async function member(email: string, role: 'admin' | 'member', inviter: { token: string } = owner) {
  const invited = await call(gw.url, 'POST', '/users', { token: inviter.token, body: { email, role } });
  expect(invited.status).toBe(201);
  const otp = invited.body.data.one_time_password as string;
  rememberSecret(otp);
  const first = await call(gw.url, 'POST', '/auth/login', { body: { email, password: otp } });
  const password = `${email} own passphrase`;
  rememberSecret(password);
  const changed = await call(gw.url, 'POST', '/auth/password', { token: first.body.data.token, body: { current_password: otp, new_password: password } });
  expect(changed.status).toBe(200);
  return { id: invited.body.data.user.id as number, token: changed.body.data.token as string, password };
}

const ownerId = async () =>
  ((await call(gw.url, 'GET', '/users', { token: owner.token })).body.data as { id: number; role: string }[]).find((u) => u.role === 'owner')!.id;

test('an owner changes a role after a step-up; it is audited and in force at the next request', async () => {
  const alice = await member('alice.roles@example.com', 'admin');
  // An admin manages the team until demoted.
  expect((await call(gw.url, 'GET', `/users/${alice.id}/api-keys`, { token: alice.token })).status).toBe(200);

  const stale = await sessionSignedInAgo(gw, { id: await ownerId() }, 3600);
  const refused = await setRole(stale, alice.id, 'member');
  expect([refused.status, refused.body.error.details.reason]).toEqual([403, 'step_up_required']);

  const changed = await setRole(owner.token, alice.id, 'member');
  expect(changed.status).toBe(200);
  expect(changed.body.data).toMatchObject({ id: alice.id, role: 'member', email: 'alice.roles@example.com' });
  const blocked = await call(gw.url, 'GET', `/users/${alice.id}/api-keys`, { token: alice.token });
  expect([blocked.status, blocked.body.error.code]).toEqual([403, 'insufficient_scope']);

  // The same role again changes nothing and records nothing.
  expect((await setRole(owner.token, alice.id, 'member')).status).toBe(200);
  const audit = await gw.env.db.auditEvent.findMany({ where: { action: 'user.role_changed' } });
  expect(audit).toEqual([
    expect.objectContaining({ objectId: String(alice.id), actorType: 'user', details: { email: 'alice.roles@example.com', from: 'admin', to: 'member' } }),
  ]);

  expect((await setRole(owner.token, alice.id, 'superuser')).status).toBe(400);
  expect((await setRole(owner.token, 999999, 'admin')).status).toBe(404);
  const own = await setRole(owner.token, await ownerId(), 'admin');
  expect([own.status, own.body.error.details.field]).toEqual([400, 'id']);
});

test('admins move users between admin and member only; members change nothing', async () => {
  const admin = await member('bob.roles@example.com', 'admin');
  const carol = await member('carol.roles@example.com', 'member');
  const promoted = await setRole(admin.token, carol.id, 'admin');
  expect([promoted.status, promoted.body.data.role]).toEqual([200, 'admin']);
  const toOwner = await setRole(admin.token, carol.id, 'owner');
  expect([toOwner.status, toOwner.body.error.details.required_role]).toEqual([403, 'owner']);
  const ofOwner = await setRole(admin.token, await ownerId(), 'member');
  expect([ofOwner.status, ofOwner.body.error.details.required_role]).toEqual([403, 'owner']);

  const dave = await member('dave.roles@example.com', 'member');
  const byMember = await setRole(dave.token, carol.id, 'member');
  expect([byMember.status, byMember.body.error.code]).toEqual([403, 'insufficient_scope']);

  // A removed user keeps their role.
  expect((await call(gw.url, 'DELETE', `/users/${dave.id}`, { token: owner.token })).status).toBe(200);
  const removed = await setRole(owner.token, dave.id, 'admin');
  expect([removed.status, removed.body.error.details.field]).toEqual([400, 'id']);
});

test('two owners demoting each other at once leave the business one owner', async () => {
  // A business of its own: either owner may win, and the loser is a member afterwards.
  const boss = await signInNewWorkspace(gw, 'Roles demote');
  const erin = await member('erin.roles@example.com', 'admin', boss);
  expect((await setRole(boss.token, erin.id, 'owner')).body.data.role).toBe('owner');
  const first = ((await call(gw.url, 'GET', '/users', { token: boss.token })).body.data as { id: number; email: string }[]).find(
    (u) => u.email !== 'erin.roles@example.com',
  )!.id;
  const [a, b] = await Promise.all([setRole(boss.token, erin.id, 'member'), setRole(erin.token, first, 'member')]);
  expect([a.status, b.status].sort()).toEqual([200, 403]);
  const owners = (
    (await call(gw.url, 'GET', '/users', { token: a.status === 200 ? boss.token : erin.token })).body.data as { role: string; status: string }[]
  ).filter((u) => u.role === 'owner' && u.status === 'active');
  expect(owners).toHaveLength(1);
});

test('two owners removing each other at once leave the business one owner', async () => {
  const boss = await signInNewWorkspace(gw, 'Roles remove');
  const frank = await member('frank.roles@example.com', 'admin', boss);
  const grace = await member('grace.roles@example.com', 'admin', boss);
  for (const u of [frank, grace]) expect((await setRole(boss.token, u.id, 'owner')).status).toBe(200);
  const [a, b] = await Promise.all([
    call(gw.url, 'DELETE', `/users/${grace.id}`, { token: frank.token }),
    call(gw.url, 'DELETE', `/users/${frank.id}`, { token: grace.token }),
  ]);
  expect([a.status, b.status].sort()).toEqual([200, 401]);
  const rows = await gw.env.db.dashboardUser.findMany({ where: { id: { in: [frank.id, grace.id] } } });
  expect(rows.filter((r) => r.disabledAt === null)).toHaveLength(1);
});

// Risk: a member managing the team, an admin removing an owner, a removed
// user whose session keeps working, a one-time password that works for more
// than choosing a new one (or is stored or logged readable), another
// workspace's users reachable.
import { hashPassword } from '@cowrie/accounts';
import { rememberSecret } from '@cowrie/testing';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let owner: Awaited<ReturnType<typeof signInNewWorkspace>>;
let other: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
  owner = await signInNewWorkspace(gw, 'Team A');
  other = await signInNewWorkspace(gw, 'Team B');
});
afterAll(() => gw.close());

/** The id of workspace A's owner. */
const ownerId = async () =>
  ((await call(gw.url, 'GET', '/users', { token: owner.token })).body.data as { id: number; role: string }[]).find((u) => u.role === 'owner')!.id;

const invite = (token: string, body: unknown, headers: Record<string, string> = {}) => call(gw.url, 'POST', '/users', { token, body, headers });

async function invited(email: string, role: 'admin' | 'member') {
  const res = await invite(owner.token, { email, role });
  expect(res.status).toBe(201);
  rememberSecret(res.body.data.one_time_password);
  return res.body.data as {
    user: { id: number; email: string; role: string; invited_by_user_id: number | null; one_time_password_expires_at: string };
    one_time_password: string;
  };
}

const signIn = (email: string, password: string) => call(gw.url, 'POST', '/auth/login', { body: { email, password } });

/** Signs in with a one-time password and chooses a new one: a working session. */
async function onboard(email: string, oneTimePassword: string) {
  const first = await signIn(email, oneTimePassword);
  expect(first.body.data.password_change_required).toBe(true);
  const changed = await call(gw.url, 'POST', '/auth/password', {
    token: first.body.data.token,
    body: { current_password: oneTimePassword, new_password: `${email} chose this` },
  });
  expect(changed.status).toBe(200);
  rememberSecret(`${email} chose this`);
  return changed.body.data.token as string;
}

test('an owner invites a member with a one-time password that only lets them choose a new one', async () => {
  const listed = await call(gw.url, 'GET', '/users', { token: owner.token });
  expect(listed.body.data).toEqual([expect.objectContaining({ role: 'owner', status: 'active', password_change_required: false })]);

  const { user, one_time_password } = await invited('new.member@example.com', 'member');
  expect(one_time_password).toMatch(/^[A-Za-z0-9_-]{24}$/);
  expect(user).toMatchObject({ email: 'new.member@example.com', role: 'member', status: 'active', password_change_required: true });
  const stored = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
  expect(stored.passwordHash).not.toContain(one_time_password);

  const first = await signIn('new.member@example.com', one_time_password);
  expect(first.status).toBe(200);
  expect(first.body.data.password_change_required).toBe(true);
  const token = first.body.data.token as string;
  const blocked = await call(gw.url, 'GET', '/webhook-endpoints', { token });
  expect([blocked.status, blocked.body.error.code, blocked.body.error.details.reason]).toEqual([403, 'insufficient_scope', 'password_change_required']);

  const change = (body: unknown) => call(gw.url, 'POST', '/auth/password', { token, body });
  for (const [body, field] of [
    [{ current_password: 'wrong password', new_password: 'a long new passphrase' }, 'current_password'],
    [{ current_password: one_time_password, new_password: 'elevenchars' }, 'new_password'],
    [{ current_password: one_time_password, new_password: one_time_password }, 'new_password'],
    [{ new_password: 'a long new passphrase' }, 'current_password'],
  ] as const) {
    const res = await change(body);
    expect([res.status, res.body.error.code, res.body.error.details.field]).toEqual([400, 'invalid_request', field]);
  }
  const changed = await change({ current_password: one_time_password, new_password: 'a long new passphrase' });
  rememberSecret('a long new passphrase');
  expect(changed.status).toBe(200);
  expect(changed.body.data.password_change_required).toBe(false);
  // The session that changed it has ended; the new one works.
  expect((await call(gw.url, 'GET', '/users', { token })).status).toBe(401);
  expect((await call(gw.url, 'GET', '/webhook-endpoints', { token: changed.body.data.token })).status).toBe(200);
  expect((await signIn('new.member@example.com', one_time_password)).status).toBe(401);
  expect((await signIn('new.member@example.com', 'a long new passphrase')).body.data.password_change_required).toBe(false);

  // A member lists the team but does not manage it.
  const member = changed.body.data.token as string;
  expect((await call(gw.url, 'GET', '/users', { token: member })).body.data).toHaveLength(2);
  const refused = await invite(member, { email: 'friend@example.com', role: 'admin' });
  expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
  expect((await call(gw.url, 'DELETE', `/users/${user.id}`, { token: member })).status).toBe(403);
});

test('a new password is at least 12 characters and not a common or breached one; an existing shorter password keeps signing in', async () => {
  const { user, one_time_password } = await invited('picky.member@example.com', 'member');
  const token = (await signIn('picky.member@example.com', one_time_password)).body.data.token as string;
  const change = (new_password: string) => call(gw.url, 'POST', '/auth/password', { token, body: { current_password: one_time_password, new_password } });
  for (const [password, message] of [
    ['elevenchars', 'new_password must be at least 12 characters'],
    ['Qwerty123456', 'new_password is too common'],
    ['Sunshine2024!', 'new_password is too common'],
  ] as const) {
    const res = await change(password);
    expect([res.status, res.body.error.code, res.body.error.details.field]).toEqual([400, 'invalid_request', 'new_password']);
    expect(res.body.error.message).toContain(message);
  }
  // A password set before the rule (8 characters) still signs in: the rule is for new ones.
  await gw.env.db.dashboardUser.update({ where: { id: user.id }, data: { passwordHash: await hashPassword('oldpass1'), passwordChangeRequired: false } });
  expect((await signIn('picky.member@example.com', 'oldpass1')).status).toBe(200);
});

test('a member reads everything and changes nothing: no money moved, no key or endpoint made', async () => {
  const { user, one_time_password } = await invited('reader@example.com', 'member');
  const member = await onboard(user.email, one_time_password);
  for (const path of [
    '/transactions',
    '/transactions/export',
    '/balances',
    '/webhook-endpoints',
    '/webhook-deliveries',
    '/api-keys',
    '/users',
    '/verifications',
  ]) {
    const res = await call(gw.url, 'GET', path, { token: member });
    expect([path, res.status]).toEqual([path, 200]);
  }
  const changes: Array<[string, string, unknown]> = [
    ['POST', '/transfers', { currency: 'NGN', amount: 10, account_number: '0123456789', bank_code: '058' }],
    ['POST', '/beneficiaries', { account_number: '0123456789', bank_code: '058', currency: 'NGN' }],
    ['POST', '/api-keys', { name: 'Mine', scopes: ['payouts:write'] }],
    ['POST', '/webhook-endpoints', { url: 'https://example.com/hook' }],
  ];
  for (const [method, path, body] of changes) {
    const res = await call(gw.url, method, path, { token: member, body, headers: { 'Idempotency-Key': `member-${path}` } });
    expect([path, res.status, res.body.error.code, res.body.error.details.required_role]).toEqual([path, 403, 'insufficient_scope', 'admin']);
  }
  expect(await gw.env.db.apiKey.count({ where: { name: 'Mine' } })).toBe(0);

  // Nor by replaying an owner's Idempotency-Key: the stored answer (a key, a one-time password) is not handed over.
  const headers = { 'Idempotency-Key': 'owner-made-this' };
  const made = await call(gw.url, 'POST', '/api-keys', { token: owner.token, body: { name: 'Owner key', scopes: ['read'] }, headers });
  expect(made.status).toBe(201);
  const replayed = await call(gw.url, 'POST', '/api-keys', { token: member, body: { name: 'Owner key', scopes: ['read'] }, headers });
  expect([replayed.status, replayed.body.error?.code]).toEqual([403, 'insufficient_scope']);
  expect(JSON.stringify(replayed.body)).not.toContain(made.body.data.key);
});

test('removing a user ends their sessions at once; nobody removes themselves, and an admin cannot remove an owner', async () => {
  const admin = await invited('team.admin@example.com', 'admin');
  const member = await invited('team.member@example.com', 'member');
  const adminToken = await onboard(admin.user.email, admin.one_time_password);
  const memberToken = await onboard(member.user.email, member.one_time_password);
  expect((await call(gw.url, 'GET', '/users', { token: memberToken })).status).toBe(200);

  const removed = await call(gw.url, 'DELETE', `/users/${member.user.id}`, { token: adminToken });
  expect(removed.status).toBe(200);
  expect(removed.body.data).toMatchObject({ id: member.user.id, status: 'removed' });
  expect((await call(gw.url, 'GET', '/users', { token: memberToken })).status).toBe(401);
  expect((await signIn(member.user.email, `${member.user.email} chose this`)).status).toBe(401);

  const self = await call(gw.url, 'DELETE', `/users/${admin.user.id}`, { token: adminToken });
  expect([self.status, self.body.error.code]).toEqual([400, 'invalid_request']);
  const ownerId = (await call(gw.url, 'GET', '/users', { token: owner.token })).body.data.find((u: { role: string }) => u.role === 'owner').id;
  const upward = await call(gw.url, 'DELETE', `/users/${ownerId}`, { token: adminToken });
  expect([upward.status, upward.body.error.code]).toEqual([403, 'insufficient_scope']);
  expect((await call(gw.url, 'DELETE', `/users/${admin.user.id}`, { token: owner.token })).status).toBe(200);
  expect((await call(gw.url, 'GET', '/users', { token: adminToken })).status).toBe(401);
});

test('offboarding: keys record who made them; removing a user lists their keys and, when asked, revokes them at once (both modes)', async () => {
  const admin = await invited('keys.admin@example.com', 'admin');
  const adminToken = await onboard(admin.user.email, admin.one_time_password);
  const make = (name: string, headers: Record<string, string> = {}) =>
    call(gw.url, 'POST', '/api-keys', { token: adminToken, body: { name, scopes: ['read'] }, headers: { 'Idempotency-Key': `make-${name}`, ...headers } });
  const live = await make('Admin live');
  const test = await make('Admin test', { 'Cowrie-Mode': 'test' });
  const rolledFrom = await make('Admin rolled');
  [live, test, rolledFrom].forEach((made) => rememberSecret(made.body.data.key));
  expect([live.status, test.status, live.body.data.created_by_user_id, test.body.data.created_by_user_id]).toEqual([201, 201, admin.user.id, admin.user.id]);
  // The owner rolls the admin's key: the new key is the owner's, the old one (expiring) stays the admin's.
  const rolled = await call(gw.url, 'POST', `/api-keys/${rolledFrom.body.data.id}/roll`, {
    token: owner.token,
    body: { grace_seconds: 3600 },
    headers: { 'Idempotency-Key': 'roll-admin-key' },
  });
  rememberSecret(rolled.body.data.key);
  expect([rolled.status, rolled.body.data.created_by_user_id, rolled.body.data.previous.created_by_user_id]).toEqual([201, await ownerId(), admin.user.id]);

  const listed = await call(gw.url, 'GET', `/users/${admin.user.id}/api-keys`, { token: owner.token });
  expect(listed.status).toBe(200);
  expect(listed.body.data.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([
    ['Admin rolled', 'expiring'],
    ['Admin test', 'active'],
    ['Admin live', 'active'],
  ]);
  expect((await call(gw.url, 'GET', `/users/${admin.user.id}/api-keys`, { token: other.token })).status).toBe(404);
  const channels = (key: string) => call(gw.url, 'GET', '/v1/channels', { token: key });
  for (const key of [live, test, rolledFrom].map((made) => made.body.data.key as string)) expect((await channels(key)).status).toBe(200);

  // Removing without the option shows the keys and leaves them working.
  const removed = await call(gw.url, 'DELETE', `/users/${admin.user.id}`, { token: owner.token });
  expect(removed.status).toBe(200);
  expect(removed.body.data).toMatchObject({ id: admin.user.id, status: 'removed' });
  expect(removed.body.data.api_keys.map((k: { status: string }) => k.status)).toEqual(['expiring', 'active', 'active']);
  expect((await channels(live.body.data.key)).status).toBe(200);

  // Again with revoke_api_keys=true: every key of theirs stops at once (the expiring one too); the owner's rolled key works on.
  const revoked = await call(gw.url, 'DELETE', `/users/${admin.user.id}?revoke_api_keys=true`, { token: owner.token });
  expect(revoked.status).toBe(200);
  expect(revoked.body.data.api_keys.map((k: { status: string }) => k.status)).toEqual(['revoked', 'revoked', 'revoked']);
  for (const key of [live, test, rolledFrom].map((made) => made.body.data.key as string)) expect((await channels(key)).status).toBe(401);
  expect((await channels(rolled.body.data.key)).status).toBe(200);
  const bad = await call(gw.url, 'DELETE', `/users/${admin.user.id}?revoke_api_keys=yes`, { token: owner.token });
  expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
});

test('removing a user and revoking their keys is one step: a user with live keys, removed with revoke_api_keys=true', async () => {
  const member = await invited('keys.member@example.com', 'admin');
  const token = await onboard(member.user.email, member.one_time_password);
  const made = await call(gw.url, 'POST', '/api-keys', { token, body: { name: 'One step', scopes: ['read'] }, headers: { 'Idempotency-Key': 'one-step' } });
  rememberSecret(made.body.data.key);
  const removed = await call(gw.url, 'DELETE', `/users/${member.user.id}?revoke_api_keys=true`, { token: owner.token });
  expect([removed.status, removed.body.data.status, removed.body.data.api_keys[0].status]).toEqual([200, 'removed', 'revoked']);
  expect((await call(gw.url, 'GET', '/v1/channels', { token: made.body.data.key })).status).toBe(401);
  expect((await call(gw.url, 'GET', '/users', { token })).status).toBe(401);
});

test("an invitation's one-time password expires after 72 hours, and dies when the inviter is removed", async () => {
  const before = Date.now();
  const late = await invited('late.member@example.com', 'member');
  const expiresAt = Date.parse(late.user.one_time_password_expires_at);
  expect(expiresAt - before).toBeGreaterThanOrEqual(72 * 3600_000);
  expect(expiresAt - Date.now()).toBeLessThanOrEqual(72 * 3600_000);
  expect(late.user.invited_by_user_id).toBe(await ownerId());
  // A session opened with it before it expired cannot change it afterwards either.
  const early = (await signIn(late.user.email, late.one_time_password)).body.data.token as string;
  // 72 hours pass.
  await gw.env.db.dashboardUser.update({ where: { id: late.user.id }, data: { oneTimePasswordExpiresAt: new Date(Date.now() - 1000) } });
  const refused = await signIn(late.user.email, late.one_time_password);
  expect([refused.status, refused.body.error.code]).toEqual([401, 'unauthorized']);
  expect(refused.body.error.message).toMatch(/one-time password has expired/);
  const change = await call(gw.url, 'POST', '/auth/password', {
    token: early,
    body: { current_password: late.one_time_password, new_password: 'too late a passphrase' },
  });
  expect([change.status, change.body.error.details.field]).toEqual([400, 'current_password']);
  expect(change.body.error.message).toMatch(/one-time password has expired/);

  // An admin invites two; one chooses a password, the other not yet. The admin is removed: the pending one-time password dies, the chosen password works on.
  const admin = await invited('inviting.admin@example.com', 'admin');
  const adminToken = await onboard(admin.user.email, admin.one_time_password);
  const inviteAs = async (email: string) => {
    const res = await invite(adminToken, { email, role: 'member' }, { 'Idempotency-Key': `by-admin-${email}` });
    rememberSecret(res.body.data.one_time_password);
    expect(res.body.data.user.invited_by_user_id).toBe(admin.user.id);
    return res.body.data as { user: { id: number; email: string }; one_time_password: string };
  };
  const pending = await inviteAs('pending.member@example.com');
  const settled = await inviteAs('settled.member@example.com');
  const settledToken = await onboard(settled.user.email, settled.one_time_password);
  const pendingSession = (await signIn(pending.user.email, pending.one_time_password)).body.data.token as string;
  expect((await call(gw.url, 'DELETE', `/users/${admin.user.id}`, { token: owner.token })).status).toBe(200);

  const dead = await signIn(pending.user.email, pending.one_time_password);
  expect([dead.status, dead.body.error.message]).toEqual([401, expect.stringMatching(/one-time password has expired/)]);
  expect((await call(gw.url, 'POST', '/auth/logout', { token: pendingSession })).status).toBe(401);
  expect((await call(gw.url, 'GET', '/users', { token: settledToken })).status).toBe(200);
  expect((await signIn(settled.user.email, `${settled.user.email} chose this`)).status).toBe(200);
});

test('invitations: a retry with its Idempotency-Key answers the same; a taken email, a bad role or email is 400; test mode shows the same team', async () => {
  const headers = { 'Idempotency-Key': 'invite-once' };
  const first = await invite(owner.token, { email: 'once@example.com', role: 'member' }, headers);
  rememberSecret(first.body.data.one_time_password);
  const again = await invite(owner.token, { email: 'once@example.com', role: 'member' }, headers);
  expect(again.status).toBe(201);
  expect(again.body.data).toEqual(first.body.data);
  for (const body of [
    { email: 'once@example.com', role: 'member' },
    { email: 'ONCE@example.com', role: 'admin' },
    { email: 'someone@example.com', role: 'owner' },
    { email: 'not an email', role: 'member' },
    { role: 'member' },
  ]) {
    const res = await invite(owner.token, body);
    expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
  }
  const live = await call(gw.url, 'GET', '/users', { token: owner.token });
  const test = await call(gw.url, 'GET', '/users', { token: owner.token, headers: { 'Cowrie-Mode': 'test' } });
  expect(test.body.data).toEqual(live.body.data);
});

test("a user of workspace B gets not_found or nothing of A's team", async () => {
  const { user } = await invited('a.private@example.com', 'member');
  expect((await call(gw.url, 'GET', '/users', { token: other.token })).body.data.map((u: { email: string }) => u.email)).not.toContain(user.email);
  const removeByB = await call(gw.url, 'DELETE', `/users/${user.id}`, { token: other.token });
  expect([removeByB.status, removeByB.body.error.code]).toEqual([404, 'not_found']);
  for (const id of ['abc', '0', '99999999999']) expect((await call(gw.url, 'DELETE', `/users/${id}`, { token: owner.token })).status).toBe(404);
  expect((await call(gw.url, 'GET', '/users', { token: owner.apiKey })).status).toBe(401);
});

test("a wrong current password counts against the user's sign-in limit (a stolen session guesses no faster than a stranger); a right one gives its place back", async () => {
  const email = 'guessed.at@example.com';
  const { one_time_password } = await invited(email, 'admin');
  const token = await onboard(email, one_time_password);
  const current = `${email} chose this`;
  const change = (currentPassword: string, newPassword = 'another long passphrase') =>
    call(gw.url, 'POST', '/auth/password', { token, body: { current_password: currentPassword, new_password: newPassword } });
  // One failed sign-in and eight wrong current passwords: nine of the email's ten places.
  expect((await signIn(email, 'not it')).status).toBe(401);
  for (let i = 0; i < 8; i++) expect((await change(`guess ${i}`)).status).toBe(400);
  // The right current password with a refused new one gives its place back, each time.
  for (let i = 0; i < 2; i++) expect([(await change(current, current)).status]).toEqual([400]);
  // The tenth failure fills the window: the right password is refused now, by both routes.
  expect((await change('one guess more')).status).toBe(400);
  const refused = await change(current);
  expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([429, 'rate_limited', 'Too many password attempts; try again later']);
  expect(refused.body.error.details.retry_after_seconds).toBeGreaterThan(0);
  expect(refused.headers.get('retry-after')).toBe(String(refused.body.error.details.retry_after_seconds));
  expect((await signIn(email, current)).status).toBe(429);
  // Nothing changed: the session and password of onboarding still stand.
  expect((await call(gw.url, 'GET', '/users', { token })).status).toBe(200);
  // Fourteen full scrypt hashes one after another: seconds each on a busy two-core machine.
}, 120_000);

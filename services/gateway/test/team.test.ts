// Risk: a member managing the team, an admin removing an owner, a removed
// user whose session keeps working, a one-time password that works for more
// than choosing a new one (or is stored or logged readable), another
// workspace's users reachable.
import { hashPassword } from '@cowrie/accounts';
import { rememberSecret } from '@cowrie/testing';
import { call, signInNewWorkspace, startTestGateway } from './start-test-gateway';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let owner: Awaited<ReturnType<typeof signInNewWorkspace>>;
let other: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
  owner = await signInNewWorkspace(gw, 'Team A');
  other = await signInNewWorkspace(gw, 'Team B');
});
afterAll(() => gw.close());

const invite = (token: string, body: unknown, headers: Record<string, string> = {}) => call(gw.url, 'POST', '/users', { token, body, headers });

async function invited(email: string, role: 'admin' | 'member') {
  const res = await invite(owner.token, { email, role });
  expect(res.status).toBe(201);
  rememberSecret(res.body.data.one_time_password);
  return res.body.data as { user: { id: number; email: string; role: string }; one_time_password: string };
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

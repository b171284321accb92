// Risk: an emailed invitation whose answer still carries a password, whose
// link works twice, after 72 hours or after the inviter was removed, or whose
// token is kept or logged readable; a deployment with email invitations that
// can still sign in with something the inviter saw.
import { rememberSecret } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

// Each test hashes several passwords (scrypt, memory-hard on purpose): on a loaded machine that takes longer than jest's default.
jest.setTimeout(120_000);

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let owner: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000', DASHBOARD_INVITES: 'email', DASHBOARD_URL: 'https://pay.example.com/dashboard' });
  owner = await signInNewWorkspace(gw, 'Invites by email');
});
afterAll(() => gw.close());

const invite = (token: string, email: string, role = 'member') => call(gw.url, 'POST', '/users', { token, body: { email, role } });
const accept = (token: string, password: string) => call(gw.url, 'POST', '/auth/password-reset/confirm', { body: { token, password } });

async function invitationToken(email: string): Promise<string> {
  const [message] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), email);
  expect(message).toMatchObject({ reference: 'invitation', subject: 'You are invited to the Cowrie dashboard' });
  const token = /https:\/\/pay\.example\.com\/dashboard\/accept-invitation\?token=([A-Za-z0-9_-]{43})\n/.exec(message!.text)![1]!;
  rememberSecret(token);
  return token;
}

test('the invitation goes by email with a link, the answer holds no password, and the link sets one once', async () => {
  const res = await invite(owner.token, 'emailed.member@example.com');
  expect(res.status).toBe(201);
  expect(Object.keys(res.body.data).sort()).toEqual(['invite', 'user']);
  expect(res.body.data.invite).toEqual({ delivery: 'email', email_sent: true, expires_at: expect.any(String) });
  const hours = (Date.parse(res.body.data.invite.expires_at) - Date.now()) / 3600_000;
  expect(hours).toBeGreaterThan(71.9);
  expect(res.body.data.invite.expires_at).toBe(res.body.data.user.one_time_password_expires_at);
  expect(res.body.data.user).toMatchObject({ email: 'emailed.member@example.com', role: 'member', password_change_required: true });

  const token = await invitationToken('emailed.member@example.com');
  const [message] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), 'emailed.member@example.com');
  expect(message!.text).toMatch(/as a member/);

  const password = 'the member chose this passphrase';
  rememberSecret(password);
  const done = await accept(token, password);
  expect([done.status, done.body.data]).toEqual([200, { email: 'emailed.member@example.com', password_set: true }]);
  expect((await accept(token, 'another passphrase entirely')).status).toBe(400);

  const signedIn = await call(gw.url, 'POST', '/auth/login', { body: { email: 'emailed.member@example.com', password } });
  expect([signedIn.status, signedIn.body.data.password_change_required]).toEqual([200, false]);
  const listed = (await call(gw.url, 'GET', '/users', { token: owner.token })).body.data as { email: string; one_time_password_expires_at: string | null }[];
  expect(listed.find((u) => u.email === 'emailed.member@example.com')).toMatchObject({ password_change_required: false, one_time_password_expires_at: null });

  const audit = await gw.env.db.auditEvent.findMany({ where: { action: { in: ['user.invited', 'user.password_reset'] } }, orderBy: { id: 'asc' } });
  expect(audit.map((row) => [row.action, row.details])).toEqual([
    ['user.invited', { email: 'emailed.member@example.com', role: 'member', delivery: 'email', email_sent: true }],
    ['user.password_reset', { via: 'invitation' }],
  ]);
});

test("the link dies with the inviter's removal and after 72 hours", async () => {
  const admin = await invite(owner.token, 'inviting.admin@example.com', 'admin');
  const adminPassword = 'the admin chose this passphrase';
  rememberSecret(adminPassword);
  expect((await accept(await invitationToken('inviting.admin@example.com'), adminPassword)).status).toBe(200);
  const adminSession = (await call(gw.url, 'POST', '/auth/login', { body: { email: 'inviting.admin@example.com', password: adminPassword } })).body.data.token;
  expect((await invite(adminSession, 'orphan.member@example.com')).status).toBe(201);
  const orphanToken = await invitationToken('orphan.member@example.com');
  expect((await call(gw.url, 'DELETE', `/users/${admin.body.data.user.id}`, { token: owner.token })).status).toBe(200);
  const refused = await accept(orphanToken, 'too late for this passphrase');
  expect([refused.status, refused.body.error.details.field]).toEqual([400, 'token']);

  const late = await invite(owner.token, 'slow.member@example.com');
  const lateToken = await invitationToken('slow.member@example.com');
  await gw.env.db.passwordLink.updateMany({ where: { userId: late.body.data.user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await accept(lateToken, 'too late for this passphrase')).status).toBe(400);
});

test('an invitee whose email did not arrive asks for a link with "Forgot password?" while the invitation lasts', async () => {
  const res = await invite(owner.token, 'bounce@example.com');
  // The sandbox bounces this address: the user exists, the answer says the email was not sent.
  expect([res.status, res.body.data.invite.email_sent]).toEqual([201, false]);
  const other = await invite(owner.token, 'lost.mail@example.com');
  expect(other.body.data.invite.email_sent).toBe(true);
  expect((await call(gw.url, 'POST', '/auth/password-reset', { body: { email: 'lost.mail@example.com' } })).status).toBe(202);
  await gw.deps.background.idle();
  const [message] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), 'lost.mail@example.com');
  const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(message!.text)![1]!;
  rememberSecret(token);
  const password = 'found my way back in here';
  rememberSecret(password);
  expect((await accept(token, password)).status).toBe(200);
  expect((await call(gw.url, 'POST', '/auth/login', { body: { email: 'lost.mail@example.com', password } })).body.data.password_change_required).toBe(false);
});

// Risk: a forgotten-password flow that tells a stranger which emails have an
// account (another answer, or an email to an unknown address), a link that
// works twice, late, after a newer one or after the password changed, a reset
// that leaves the old sessions signed in, a token kept or logged readable, or
// a request route that floods a mailbox.
import { createHash } from 'node:crypto';
import { createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { call, startTestGateway } from '../testing';

// Each test hashes several passwords (scrypt, memory-hard on purpose): on a loaded machine that takes longer than jest's default.
jest.setTimeout(120_000);

let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000', DASHBOARD_URL: 'https://pay.example.com/dashboard', TRUST_PROXY: 'loopback' });
});
/** Each test asks from its own client address (the proxy's X-Forwarded-For), so the per-address limit is the limit test's alone. */
let clientAddress = '203.0.113.1';
let addresses = 1;
beforeEach(() => {
  addresses += 1;
  clientAddress = `203.0.113.${addresses}`;
});
afterAll(() => gw.close());

const outbox = (email: string) => readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), email);
const askReset = (email: string) => call(gw.url, 'POST', '/auth/password-reset', { body: { email }, headers: { 'x-forwarded-for': clientAddress } });
const confirm = (token: string, password: string) => call(gw.url, 'POST', '/auth/password-reset/confirm', { body: { token, password } });
const signIn = (email: string, password: string) => call(gw.url, 'POST', '/auth/login', { body: { email, password } });

/** Asks for a reset of `email`, waits for the work after the answer, and returns the link's token from the sandbox outbox. */
async function resetToken(email: string): Promise<string> {
  expect((await askReset(email)).status).toBe(202);
  await gw.deps.background.idle();
  const [message] = await outbox(email);
  const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(message?.text ?? '')?.[1];
  if (!token) throw new Error(`no reset link in ${JSON.stringify(message)}`);
  rememberSecret(token);
  return token;
}

async function newUser(name: string) {
  const { workspace } = await createWorkspaceWithKey(gw.env.db, { name });
  const user = await createUserFor(gw.env.db, workspace.id, `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`);
  return { ...user, workspaceId: workspace.id };
}

test('a known and an unknown email get the same answer; only the known one gets an email, with a single-use link stored hashed', async () => {
  const user = await newUser('Reset Known');
  const known = await askReset(user.email);
  const unknown = await askReset('nobody.here@example.com');
  expect([known.status, unknown.status]).toEqual([202, 202]);
  expect(known.body.data).toEqual({ requested: true });
  expect(unknown.body.data).toEqual(known.body.data);
  expect([...unknown.headers.keys()].sort()).toEqual([...known.headers.keys()].sort());
  // A malformed email is refused whoever asks, before anything is looked up.
  expect((await askReset('not-an-email')).status).toBe(400);

  await gw.deps.background.idle();
  expect(await outbox('nobody.here@example.com')).toEqual([]);
  const [message, ...others] = await outbox(user.email);
  expect(others).toEqual([]);
  expect(message).toMatchObject({ channel: 'email', reference: 'password_reset', subject: 'Reset your Cowrie dashboard password' });
  const token = /https:\/\/pay\.example\.com\/dashboard\/reset-password\?token=([A-Za-z0-9_-]{43})\n/.exec(message!.text)![1]!;
  rememberSecret(token);
  expect(message!.text).toMatch(/works once, for 30 minutes/);

  const [link] = await gw.env.db.passwordLink.findMany({ where: { userId: user.id } });
  expect(link).toMatchObject({ purpose: 'reset', usedAt: null, tokenHash: createHash('sha256').update(token).digest('hex') });
  expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeGreaterThanOrEqual(29 * 60_000);
  expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeLessThanOrEqual(30 * 60_000 + 1000);

  const requested = await gw.env.db.auditEvent.findMany({ where: { action: 'user.password_reset_requested' } });
  expect(requested).toEqual([expect.objectContaining({ objectId: String(user.id), actorType: 'anonymous', details: { sent: true } })]);
});

test('the link sets a password under the same rules, ends every session, works once, and never signs in by itself', async () => {
  const user = await newUser('Reset Use');
  const before = await signIn(user.email, user.password);
  const oldSession = before.body.data.token as string;
  const token = await resetToken(user.email);

  const weak = await confirm(token, 'password1234');
  expect([weak.status, weak.body.error.details.field]).toEqual([400, 'password']);
  const short = await confirm(token, 'short');
  expect([short.status, short.body.error.details.field]).toEqual([400, 'password']);

  const newPassword = 'a brand new passphrase for reset';
  rememberSecret(newPassword);
  const done = await confirm(token, newPassword);
  expect(done.status).toBe(200);
  expect(done.body.data).toEqual({ email: user.email, password_set: true });
  expect(JSON.stringify(done.body)).not.toMatch(/eyJ/);

  expect((await call(gw.url, 'GET', '/users', { token: oldSession })).status).toBe(401);
  expect((await signIn(user.email, user.password)).status).toBe(401);
  expect((await signIn(user.email, newPassword)).status).toBe(200);

  const again = await confirm(token, 'yet another passphrase here');
  expect([again.status, again.body.error.code, again.body.error.details.field]).toEqual([400, 'invalid_request', 'token']);
  expect((await confirm('made-up-token-that-was-never-issued-anywhere', 'yet another passphrase here')).status).toBe(400);

  const audit = await gw.env.db.auditEvent.findMany({ where: { action: 'user.password_reset', objectId: String(user.id) } });
  expect(audit).toEqual([expect.objectContaining({ actorType: 'user', actorUserId: user.id, details: { via: 'reset' } })]);
});

test('an older link dies when a newer one is sent, when the password changes, and when it expires', async () => {
  const user = await newUser('Reset Older');
  const first = await resetToken(user.email);
  const second = await resetToken(user.email);
  expect(second).not.toBe(first);
  expect((await confirm(first, 'first link passphrase here')).status).toBe(400);

  // A password change (signed in) ends the outstanding link.
  const session = (await signIn(user.email, user.password)).body.data.token as string;
  const changed = await call(gw.url, 'POST', '/auth/password', {
    token: session,
    body: { current_password: user.password, new_password: 'changed while a link was out' },
  });
  rememberSecret('changed while a link was out');
  expect(changed.status).toBe(200);
  expect((await confirm(second, 'second link passphrase here')).status).toBe(400);

  const third = await resetToken(user.email);
  await gw.env.db.passwordLink.updateMany({ where: { userId: user.id, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await confirm(third, 'third link passphrase here')).status).toBe(400);
  expect((await signIn(user.email, 'changed while a link was out')).status).toBe(200);
});

test('a removed user and a dead invitation get no email (and the same answer)', async () => {
  const owner = await newUser('Reset Removed');
  const login = await signIn(owner.email, owner.password);
  const invited = await call(gw.url, 'POST', '/users', { token: login.body.data.token, body: { email: 'gone.member@example.com', role: 'member' } });
  expect(invited.status).toBe(201);
  rememberSecret(invited.body.data.one_time_password);
  const removed = await call(gw.url, 'DELETE', `/users/${invited.body.data.user.id}`, { token: login.body.data.token });
  expect(removed.status).toBe(200);

  const expired = await call(gw.url, 'POST', '/users', { token: login.body.data.token, body: { email: 'late.member@example.com', role: 'member' } });
  rememberSecret(expired.body.data.one_time_password);
  await gw.env.db.dashboardUser.update({ where: { id: expired.body.data.user.id }, data: { oneTimePasswordExpiresAt: new Date(Date.now() - 1000) } });

  for (const email of ['gone.member@example.com', 'late.member@example.com']) {
    const res = await askReset(email);
    expect([res.status, res.body.data]).toEqual([202, { requested: true }]);
  }
  await gw.deps.background.idle();
  expect(await outbox('gone.member@example.com')).toEqual([]);
  expect(await outbox('late.member@example.com')).toEqual([]);
});

test('requests are limited per email (from every address) and per client address, alike for known and unknown emails', async () => {
  const user = await newUser('Reset Limited');
  for (const email of [user.email, 'unknown.limited@example.com']) {
    for (let i = 0; i < 5; i += 1) expect((await askReset(email)).status).toBe(202);
    const refused = await askReset(email);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  await gw.deps.background.idle();
  expect((await outbox(user.email)).length).toBe(5);
  // Sign-in is untouched by reset requests.
  expect((await signIn(user.email, user.password)).status).toBe(200);

  // From one address, twenty requests in all, whatever the emails (the ten above counted, two of them refused by the email's limit).
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1) statuses.push((await askReset(`someone.${i}@example.com`)).status);
  expect(statuses).toEqual([...Array<number>(10).fill(202), 429, 429]);
  clientAddress = '198.51.100.7';
  expect((await askReset('someone.else@example.com')).status).toBe(202);
});

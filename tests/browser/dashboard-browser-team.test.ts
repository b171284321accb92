// Risk: the dashboard's account pages not holding up in a real browser: no
// way from the sign-in page to a reset link, a link page that keeps the token
// in the address bar (and the history) or signs in by itself, an emailed
// invitation that cannot be accepted, a role change without the step-up or
// without a control, a removal that hides the user's API keys or revokes them
// unasked. Headless Chromium against a gateway with email invitations on;
// screenshots go to test-artifacts/dashboard/.
import type { Browser, Page } from 'playwright-core';
import { createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { call, sessionSignedInAgo, startTestGateway } from '@cowrie/gateway/testing';
import { newDashboardPage } from './browser-stack';
import { expectText, launchChromium, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let owner: { id: number; email: string; password: string };
const FLOW_TIMEOUT_MS = 90_000;
const INVITEE = 'invited.by.email@example.com';
const INVITEE_PASSWORD = 'invited person passphrase';

beforeAll(async () => {
  [gw, browser] = await Promise.all([startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000', DASHBOARD_INVITES: 'email' }), launchChromium()]);
  const { workspace } = await createWorkspaceWithKey(gw.env.db, { name: 'Team Pages Ltd' });
  owner = await createUserFor(gw.env.db, workspace.id, 'team.owner@example.com');
  page = await newDashboardPage(browser, gw.url);
  problems = watchPageProblems(page);
  rememberSecret(INVITEE_PASSWORD);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** The token of the newest link emailed to `email` (the sandbox outbox). */
async function emailedToken(email: string, page: 'reset-password' | 'accept-invitation'): Promise<string> {
  await gw.deps.background.idle();
  const [message] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), email);
  const token = new RegExp(`/dashboard/${page}\\?token=([A-Za-z0-9_-]+)`).exec(message?.text ?? '')?.[1];
  if (!token) throw new Error(`no ${page} link emailed to ${email}`);
  rememberSecret(token);
  return token;
}

test(
  '"Forgot password?" asks for the email, says the same for any, and the emailed link sets a new password that then signs in',
  async () => {
    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expectText(page.getByRole('status'), `If an account signs in with ${owner.email}, we have sent it a link`);
    await screenshotBothWidths(page, 'forgot-password');

    const token = await emailedToken(owner.email, 'reset-password');
    await page.goto(`/dashboard/reset-password?token=${token}`);
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    // The token leaves the address bar (and so the history) as soon as the page has it.
    expect(page.url()).toBe(`${gw.url}/dashboard/reset-password`);
    await page.getByLabel('New password', { exact: true }).fill('password1234');
    await page.getByLabel('New password again').fill('password1234');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expectText(page.getByRole('alert'), 'Not set: password is too common');
    const newPassword = 'the owner remembered now';
    rememberSecret(newPassword);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await screenshotBothWidths(page, 'reset-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();
    await screenshotBothWidths(page, 'password-set');
    await page.getByRole('link', { name: 'Sign in' }).click();
    owner = { ...owner, password: newPassword };
    await signInThroughForm(page, owner);

    // The link worked once: opened again, it is refused.
    await page.goto(`/dashboard/reset-password?token=${token}`);
    await page.getByLabel('New password', { exact: true }).fill('another fine passphrase');
    await page.getByLabel('New password again').fill('another fine passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expectText(page.getByRole('alert'), 'This link has expired or was already used');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'an invitation goes by email: the owner is told so (no password shown), and the invitee chooses a password on the link page',
  async () => {
    await page.goto('/dashboard/team');
    await page.getByRole('button', { name: 'Invite a user' }).click();
    await page.getByLabel('Email').fill(INVITEE);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expectText(page.getByRole('status'), `We emailed ${INVITEE} a link to choose their password`);
    expect(await page.locator('input[data-secret]').count()).toBe(0);
    await screenshotBothWidths(page, 'team-invited-by-email');

    const token = await emailedToken(INVITEE, 'accept-invitation');
    const invitee = await newDashboardPage(browser, gw.url);
    await invitee.goto(`/dashboard/accept-invitation?token=${token}`);
    await invitee.getByRole('heading', { level: 1, name: 'Welcome: choose your password' }).waitFor();
    await invitee.getByLabel('New password', { exact: true }).fill(INVITEE_PASSWORD);
    await invitee.getByLabel('New password again').fill(INVITEE_PASSWORD);
    await screenshotBothWidths(invitee, 'accept-invitation');
    await invitee.getByRole('button', { name: 'Set password' }).click();
    await invitee.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();
    await invitee.getByRole('link', { name: 'Sign in' }).click();
    await signInThroughForm(invitee, { email: INVITEE, password: INVITEE_PASSWORD });
    await invitee.context().close();
  },
  FLOW_TIMEOUT_MS,
);

test(
  "the owner changes the invitee's role after confirming it is them",
  async () => {
    const stale = await sessionSignedInAgo(gw, owner, 600);
    await page.evaluate((t) => (globalThis as any).sessionStorage.setItem('cowrie.dashboard.session', t), stale);
    await page.goto('/dashboard/team');
    const row = page.getByRole('table', { name: 'Users' }).locator('tbody tr').filter({ hasText: INVITEE });
    await row.getByLabel(`Role of ${INVITEE}`).selectOption('admin');
    await row.getByRole('button', { name: 'Change role' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password').fill(owner.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    // While the change is in flight its button reads "Changing…"; both are gone once the list shows the new role.
    await row.getByRole('button', { name: /^(Change role|Changing…)$/ }).waitFor({ state: 'detached' });
    expect((await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { email: INVITEE } })).role).toBe('admin');
    expect(await row.getByLabel(`Role of ${INVITEE}`).inputValue()).toBe('admin');
    await screenshotBothWidths(page, 'team-roles');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'removing a user lists the API keys they made and revokes them in the same step (the box is checked by default)',
  async () => {
    const session = await call(gw.url, 'POST', '/auth/login', { body: { email: INVITEE, password: INVITEE_PASSWORD } });
    const made = await call(gw.url, 'POST', '/api-keys', { token: session.body.data.token, body: { name: 'Their checkout server', scopes: ['read'] } });
    expect(made.status).toBe(201);
    rememberSecret(made.body.data.key);

    await page.goto('/dashboard/team');
    const row = page.getByRole('table', { name: 'Users' }).locator('tbody tr').filter({ hasText: INVITEE });
    await row.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${INVITEE}?` });
    await expectText(dialog.getByRole('list', { name: `API keys of ${INVITEE}` }), 'Their checkout server');
    await expectText(dialog, made.body.data.prefix);
    const revoke = dialog.getByLabel(/Also revoke their 1 working key/);
    expect(await revoke.isChecked()).toBe(true);
    await screenshotBothWidths(page, 'team-remove');
    await dialog.getByRole('button', { name: `Remove ${INVITEE}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(row, 'removed');
    const key = await gw.env.db.apiKey.findUniqueOrThrow({ where: { id: made.body.data.id } });
    expect(key.revokedAt).not.toBeNull();
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(problems).toEqual([]);
});

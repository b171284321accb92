// Risk: the dashboard's read pages (deposits, verifications) that render but
// mislead: a held-back transfer shown as credited, an amount through a float,
// a destination unmasked, a filter that does not filter. Headless Chromium
// (Debian's package, driven by playwright-core) against a gateway with the
// verification dispatcher on a fresh database; screenshots go to
// test-artifacts/dashboard/.
import type { Browser, Page } from 'playwright-core';
import { Decimal } from '@cowrie/core';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { createUserFor, createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { startVerificationGateway } from '../e2e/start-verification-gateway';
import { newDashboardPage } from './browser-stack';
import { expectCount, expectText, launchChromium, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let apiKey: string;
let browser: Browser;
let page: Page;
let pageProblems: string[] = [];
let owner: { email: string; password: string };
const FLOW_TIMEOUT_MS = 60_000;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startVerificationGateway({ PUBLIC_API_RATE_LIMIT: '1000' }), launchChromium()]);
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Readers Ltd' });
  apiKey = key;
  owner = await createUserFor(gw.env.db, workspace.id);
  page = await newDashboardPage(browser, gw.url);
  pageProblems = watchPageProblems(page);
  await signInThroughForm(page, owner);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** A transfer the collection rail reports into an account number. */
const transferIn = (accountNumber: string, amount: string, providerReference: string) =>
  receiveInboundTransfer(
    { db: gw.env.db },
    { provider: gw.env.config.COLLECTION_RAIL, providerReference, accountNumber, amount: new Decimal(amount), currency: 'NGN', raw: {} },
  );

test(
  'deposits: collections by status, reserved accounts, and the transfers into one account, credited or held back with the reason',
  async () => {
    await page.getByRole('link', { name: 'Deposits' }).click();
    await page.getByRole('heading', { level: 1, name: 'Deposits' }).waitFor();
    await page.getByText('No collections yet').waitFor();
    await page.getByText('No transfers received yet').waitFor();
    await screenshotBothWidths(page, 'deposits-empty');

    const open = async (amount: string) =>
      (await call(gw.url, 'POST', '/v1/collections', { token: apiKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount } })).body
        .data;
    const paid = await open('700.25');
    const unpaid = await open('800');
    const reserved = (
      await call(gw.url, 'POST', '/v1/reserved-accounts', {
        token: apiKey,
        body: { customer_name: 'Bola Ade', customer_email: 'bola@example.com', currency: 'NGN' },
      })
    ).body.data;
    expect(await transferIn(paid.account.account_number, '700.25', 'pages-in-1')).toMatchObject({ status: 'credited' });
    expect(await transferIn(unpaid.account.account_number, '50', 'pages-in-2')).toMatchObject({ status: 'unmatched' });
    expect(await transferIn(reserved.account.account_number, '1234.5', 'pages-in-3')).toMatchObject({ status: 'credited' });
    await page.reload();

    const collections = page.getByRole('table', { name: 'Collections' }).locator('tbody tr');
    await expectCount(collections, 2);
    await expectText(collections.filter({ hasText: paid.reference }), '₦700.25');
    await expectText(collections.filter({ hasText: paid.reference }), 'successful');
    await page.getByLabel('Status').selectOption('pending');
    await expectCount(collections, 1);
    await expectText(collections.first(), unpaid.reference);
    await expectText(page.getByRole('table', { name: 'Reserved accounts' }), reserved.account.account_number);
    await expectCount(page.getByRole('table', { name: 'Transfers received' }).locator('tbody tr'), 3);
    await screenshotBothWidths(page, 'deposits');

    // The unpaid collection's transfers: the one held back, with why, and no ledger transaction.
    await collections
      .first()
      .getByRole('button', { name: /^Transfers/ })
      .click();
    await page.getByRole('heading', { name: `Transfers into collection ${unpaid.reference}` }).waitFor();
    const payments = page.getByRole('table', { name: 'Transfers received' }).locator('tbody tr');
    await expectCount(payments, 1);
    await expectText(payments.first(), 'unmatched');
    await expectText(payments.first(), '₦50.00');
    const api = (await call(gw.url, 'GET', `/deposit-payments?collection_id=${unpaid.id}`, { token: await sessionToken() })).body.data;
    await expectText(payments.first(), api[0].reason);
    expect(api[0].transaction_reference).toBeNull();

    await page
      .getByRole('table', { name: 'Reserved accounts' })
      .getByRole('button', { name: /^Transfers/ })
      .click();
    await expectCount(payments, 1);
    await expectText(payments.first(), 'credited');
    await expectText(payments.first(), '₦1,234.50');
    await expectText(payments.first(), 'ledger ');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'verifications: the list masked and filtered by channel, one opened; no destination or code shows in the page',
  async () => {
    await page.getByRole('link', { name: 'Verifications' }).click();
    await page.getByRole('heading', { level: 1, name: 'Verifications' }).waitFor();
    await page.getByText('No verifications yet').waitFor();
    const start = (body: Record<string, string>) => call(gw.url, 'POST', '/v1/verifications', { token: apiKey, body });
    const sms = (await start({ channel: 'sms', destination: '+2348012345678' })).body.data;
    const email = (await start({ channel: 'email', destination: 'ada.lovelace@example.com' })).body.data;
    await page.reload();
    const rows = page.getByRole('table', { name: 'Verifications' }).locator('tbody tr');
    await expectCount(rows, 2);
    // Conversion by channel over the last hour: one sms and one email started, none verified.
    const conversion = page.getByRole('table', { name: 'Conversion by channel' }).locator('tbody tr');
    await expectCount(conversion, 4);
    await expectText(conversion.first(), 'sms');
    expect((await conversion.first().innerText()).trim().split(/\s+/)).toEqual(['sms', '1', '0', '0%']);
    await page.getByText('No prefix is over the threshold.').waitFor();
    await screenshotBothWidths(page, 'verifications');

    await page.getByLabel('Channel').selectOption('email');
    await expectCount(rows, 1);
    await expectText(rows.first(), 'a**********e@example.com');
    await rows
      .first()
      .getByRole('button', { name: /^Details/ })
      .click();
    const detail = page.getByRole('region', { name: `Verification ${email.reference}` });
    await expectText(detail, 'Destination (masked)');
    await expectText(detail, 'a**********e@example.com');
    await expectText(detail, 'pending');
    await screenshotBothWidths(page, 'verification-detail');
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/ada\.lovelace|8012345678/);
    // The code the sandbox provider sent for the SMS is nowhere in the page.
    const message = await waitFor(async () => (await gw.sandboxMessages('+2348012345678')).find((m) => m.reference === sms.reference));
    expect(message.code).toMatch(/^\d{4,8}$/);
    expect(text).not.toContain(message.code);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'team: the owner invites a member (the one-time password shown once, copied); the member must choose a password first, cannot invite; the owner removes them',
  async () => {
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    const users = page.getByRole('table', { name: 'Users' }).locator('tbody tr');
    await expectText(users.filter({ hasText: owner.email }), '(you)');
    await page.getByRole('button', { name: 'Invite a user' }).click();
    const email = `member-${Date.now()}@example.com`;
    await page.keyboard.type(email);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const shown = page.getByRole('region', { name: `One-time password for ${email}` });
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    const oneTime = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
    expect(oneTime).toHaveLength(24);
    expect(await shown.getByRole('textbox').inputValue()).toBe(oneTime);
    await screenshotBothWidths(page, 'team-invited');
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await shown.waitFor({ state: 'detached' });
    await expectText(users.filter({ hasText: email }), 'has not chosen a password yet');
    await screenshotBothWidths(page, 'team');

    // The member signs in with it: the first screen asks for a new password, and nothing else opens meanwhile.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(oneTime);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    expect((await call(gw.url, 'GET', '/balances', { token: await sessionToken() })).status).toBe(403);
    await screenshotBothWidths(page, 'choose-password');
    await page.getByLabel('One-time password').fill(oneTime);
    await page.getByLabel('New password', { exact: true }).fill('a member of the team');
    await page.getByLabel('New password again').fill('a member of the team!');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await expectText(page.getByRole('alert'), 'The two new passwords differ');
    await page.getByLabel('New password again').fill('a member of the team');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // Signed in where the address was (the Team page the owner signed out on).
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    expect((await call(gw.url, 'GET', '/balances', { token: await sessionToken() })).status).toBe(200);

    // A member sees the team but is offered no invitation, which the API refuses them.
    await expectText(users.filter({ hasText: email }), '(you)');
    await expectCount(page.getByRole('button', { name: 'Invite a user' }), 0);
    const refused = await call(gw.url, 'POST', '/users', { token: await sessionToken(), body: { email: `other-${Date.now()}@example.com`, role: 'member' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Only an owner or an admin of this workspace can do this; members can read');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInThroughForm(page, owner);
    await page.getByRole('link', { name: 'Team' }).click();
    const member = users.filter({ hasText: email });
    await member.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: `Remove ${email}?` })
      .getByRole('button', { name: `Remove ${email}` })
      .click();
    await expectText(member, 'removed');
    const login = await call(gw.url, 'POST', '/auth/login', { body: { email, password: 'a member of the team' } });
    expect(login.status).toBe(401);
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(pageProblems).toEqual([]);
});

const sessionToken = async () => (await page.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session') as string))!;

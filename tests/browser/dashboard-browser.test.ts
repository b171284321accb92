// Risk: a dashboard that renders but cannot be used: sign-in, the secret shown
// once that cannot be copied, a test ping that never shows in the log, a key
// revoked in the page that still works, a sign-out that leaves the session
// alive. Headless Chromium (Debian's package, driven by playwright-core)
// against a gateway and a webhook worker on a fresh database, through the
// pages as a user clicks them; screenshots of each page at laptop and phone
// width go to test-artifacts/dashboard/.
import type { Page } from 'playwright-core';
import { verifyWebhookSignature } from '@cowrie/webhooks';
import { waitFor, type HttpReceiver } from '@cowrie/testing';
import { call, type startTestGateway } from '@cowrie/gateway/testing';
import { newDashboardPage, startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, signInThroughForm } from './browser';

let stack: Awaited<ReturnType<typeof startBrowserStack>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let apiKey: string;
let receiver: HttpReceiver;
let page: Page;
let user: { email: string; password: string };
/** Each flow's limit: a passing run takes a few seconds; a loaded CI machine gets room. */
const FLOW_TIMEOUT_MS = 60_000;

beforeAll(async () => {
  stack = await startBrowserStack({ workspace: 'Browser Ltd', fundNgn: '1234.5' });
  ({ gw, apiKey, receiver, page, user } = stack);
}, 60_000);
afterAll(() => stack?.close());

// The page's globals (the gateway's TypeScript has no DOM types).
const clipboard = () => page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
const sessionToken = () => page.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session') as string | null);

const signIn = () => signInThroughForm(page, user);

test(
  'sign in: a wrong password shows the API message; the right one opens Home with the balances as the API gives them',
  async () => {
    await page.goto('/dashboard');
    await screenshotBothWidths(page, 'signin');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('alert'), 'Email or password is incorrect');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    const ngn = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'NGN' }) });
    // Amounts for people in cards and lists (the reader's locale, the currency's symbol and digits).
    await expectText(ngn, '₦1,234.50');
    // The funding is the recent activity.
    await expectText(page.getByRole('row').filter({ hasText: 'Test funding' }), '₦1,234.50');
    // The token is kept for this tab only.
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    expect(await sessionToken()).toMatch(/^ey/);
    await screenshotBothWidths(page, 'home');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'webhooks: add an endpoint, copy its secret, send a test ping to a local receiver and see it in the delivery log',
  async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    await screenshotBothWidths(page, 'webhooks-empty');

    const url = `${receiver.url}/cowrie`;
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    // The form opens with its URL field focused.
    await page.keyboard.type(url);
    await screenshotBothWidths(page, 'webhooks-add');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('region', { name: `Signing secret for ${url}` });
    await shown.getByRole('button', { name: 'Copy', exact: true }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    const secret = await clipboard();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await shown.getByRole('textbox', { name: `Signing secret for ${url}` }).inputValue()).toBe(secret);
    // Beside it, the same key in Standard Webhooks form.
    const standard = shown.getByRole('textbox', { name: /Standard Webhooks/ });
    expect(await standard.inputValue()).toBe(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
    await screenshotBothWidths(page, 'webhooks-secret');
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    // Gone once stored: the page keeps no copy to show again.
    await shown.waitFor({ state: 'detached' });
    expect(await page.locator('[data-secret]').count()).toBe(0);

    const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    await expectText(endpoint.getByRole('status'), 'Test ping delivered: HTTP 200 after 1 attempt');
    // The receiver got the ping, signed with the secret the page copied.
    const ping = receiver.requests.find((r) => r.path === '/cowrie')!;
    expect(JSON.parse(ping.rawBody.toString()).event).toBe('ping');
    expect(verifyWebhookSignature({ rawBody: ping.rawBody, header: ping.headers['x-cowrie-signature'], secret })).toBe(true);

    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    const row = log.getByRole('row').filter({ hasText: 'ping' });
    await expectText(row, 'delivered');
    // The Event filter offers each event once: ping is one of the API's event types.
    const eventChoices = await page.getByLabel('Event', { exact: true }).locator('option').allInnerTexts();
    expect(eventChoices).toContain('ping');
    expect(eventChoices.length).toBe(new Set(eventChoices).size);
    await expectText(row, 'HTTP 200');
    await row.getByRole('button', { name: /^Details/ }).click();
    const detail = page.getByRole('region', { name: /^Delivery #/ });
    await expectText(detail, `"endpoint_id": `);
    await expectText(detail, ping.headers['x-cowrie-delivery'] as string);
    await screenshotBothWidths(page, 'webhooks');

    // Roll the secret with a grace period: the new one is shown once, and a ping now carries both signatures.
    await endpoint.getByLabel('Grace period for the old secret').selectOption({ label: 'Sign with both for 1 hour' });
    await endpoint.getByRole('button', { name: 'Roll secret' }).click();
    const rolled = page.getByRole('region', { name: `New signing secret for ${url}` });
    await expectText(rolled, 'every delivery carries two signatures');
    const newSecret = await rolled.getByRole('textbox', { name: `New signing secret for ${url}` }).inputValue();
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecret).not.toBe(secret);
    expect(await rolled.getByRole('textbox', { name: /Standard Webhooks/ }).inputValue()).toBe(`whsec_${Buffer.from(newSecret, 'utf8').toString('base64')}`);
    await rolled.getByRole('button', { name: 'I have stored it' }).click();
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    // The first ping's result is on the page until this one's replaces it: wait for the receiver instead.
    const second = await waitFor(() => receiver.requests.filter((r) => r.path === '/cowrie')[1]);
    await expectText(endpoint.getByRole('status'), 'Test ping delivered');
    expect(String(second.headers['x-cowrie-signature']).match(/v1=/g)).toHaveLength(2);
    for (const key of [newSecret, secret])
      expect(verifyWebhookSignature({ rawBody: second.rawBody, header: second.headers['x-cowrie-signature'], secret: key })).toBe(true);

    // Edit: only verification events, inactive.
    await endpoint.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: `Edit endpoint ${url}` });
    await form.getByLabel('Only these events:').check();
    await form.getByRole('checkbox', { name: /verification\.verified/ }).check();
    await form.getByLabel('Active (deliveries are sent)').uncheck();
    await form.getByRole('button', { name: 'Save' }).click();
    await expectText(endpoint, 'inactive');
    await expectText(endpoint, 'Events: verification.verified');
    const saved = (await call(gw.url, 'GET', '/webhook-endpoints', { token: (await sessionToken())! })).body.data[0];
    expect(saved).toMatchObject({ url, events: ['verification.verified'], active: false });
  },
  FLOW_TIMEOUT_MS,
);

test(
  'webhooks: a failing receiver: the ping shows the failure, the log marks it failed and filters by endpoint; delete an endpoint',
  async () => {
    const failing = `${receiver.url}/failing`;
    receiver.reply = (req) => (req.path === '/failing' ? { status: 500, body: 'receiver down' } : { status: 200, body: 'ok' });
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.getByLabel('URL').fill(failing);
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    await page
      .getByRole('region', { name: `Signing secret for ${failing}` })
      .getByRole('button', { name: 'I have stored it' })
      .click();
    const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: failing }) });
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    await expectText(endpoint.getByRole('status'), 'Test ping failed: HTTP 500 after 3 attempts');

    await page.getByLabel('Endpoint', { exact: true }).selectOption({ label: failing });
    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    await expectText(log.getByRole('row').filter({ hasText: 'ping' }), 'failed');
    // Only this endpoint's delivery: the other endpoint's two pings are filtered out.
    await expectCount(log.getByRole('row').filter({ hasText: 'delivered' }), 0);
    await expectCount(log.getByRole('row').filter({ hasText: 'ping' }), 1);
    await screenshotBothWidths(page, 'webhooks-failed');

    await endpoint.getByRole('button', { name: 'Delete' }).click();
    await endpoint.getByRole('button', { name: 'Delete this endpoint' }).click();
    await endpoint.waitFor({ state: 'detached' });
    const left = (await call(gw.url, 'GET', '/webhook-endpoints', { token: (await sessionToken())! })).body.data;
    expect(left.map((e: { url: string }) => e.url)).toEqual([`${receiver.url}/cowrie`]);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'API keys: create a key shown once, use it against /v1, roll it, revoke it in the page and the next request is 401',
  async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('Checkout server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key “Checkout server”' });
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    const key = await clipboard();
    expect(key).toMatch(/^ck_live_/);
    await screenshotBothWidths(page, 'api-keys-created');
    await shown.getByRole('button', { name: 'I have stored it' }).click();

    const balances = await call(gw.url, 'GET', '/v1/balances', { token: key });
    expect(balances.status).toBe(200);
    expect(balances.body.data.find((b: { currency: string }) => b.currency === 'NGN').available).toBe('1234.500000');

    const rows = page.getByRole('row').filter({ hasText: 'Checkout server' });
    await expectText(rows, 'active');
    await screenshotBothWidths(page, 'api-keys');

    // Roll with no grace: the new key is shown once and works, the old one stops at once.
    await rows.getByLabel('Grace period for rolling Checkout server').selectOption({ label: 'old key stops now' });
    await rows.getByRole('button', { name: 'Roll Checkout server' }).click();
    const rolled = page.getByRole('region', { name: 'New API key for “Checkout server”' });
    await expectText(rolled, 'no longer works');
    const newKey = await rolled.getByRole('textbox').inputValue();
    expect(newKey).toMatch(/^ck_live_/);
    await rolled.getByRole('button', { name: 'I have stored it' }).click();
    expect((await call(gw.url, 'GET', '/v1/balances', { token: key })).status).toBe(401);
    expect((await call(gw.url, 'GET', '/v1/balances', { token: newKey })).status).toBe(200);

    // Revoke the new one in the page: its next request is 401.
    const current = rows.filter({ hasText: 'active' });
    await current.getByRole('button', { name: 'Revoke' }).click();
    await current.getByRole('button', { name: 'Revoke Checkout server now' }).click();
    await rows.filter({ hasText: 'active' }).waitFor({ state: 'detached' });
    await expectCount(rows.filter({ hasText: 'revoked' }), 2);
    expect((await call(gw.url, 'GET', '/v1/balances', { token: newKey })).status).toBe(401);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'API keys: the old key of a roll with a grace period is revoked early from its row, and its next request is 401 while the new key works',
  async () => {
    await page.getByLabel('Name').fill('Leaked server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key “Leaked server”' });
    const leaked = await shown.getByRole('textbox').inputValue();
    await shown.getByRole('button', { name: 'I have stored it' }).click();

    const rows = page.getByRole('row').filter({ hasText: 'Leaked server' });
    await rows.getByLabel('Grace period for rolling Leaked server').selectOption({ label: 'old key works 1 h more' });
    await rows.getByRole('button', { name: 'Roll Leaked server' }).click();
    const rolled = page.getByRole('region', { name: 'New API key for “Leaked server”' });
    await expectText(rolled, 'keeps working until');
    const newKey = await rolled.getByRole('textbox').inputValue();
    await rolled.getByRole('button', { name: 'I have stored it' }).click();
    expect((await call(gw.url, 'GET', '/v1/balances', { token: leaked })).status).toBe(200);

    // The expiring row offers Revoke (not Roll: its successor is the key to roll).
    const expiring = rows.filter({ hasText: 'expiring' });
    await expectText(expiring, 'until');
    await expectCount(expiring.getByRole('button', { name: /^Roll/ }), 0);
    await expiring.getByRole('button', { name: 'Revoke' }).click();
    await screenshotBothWidths(page, 'api-keys-revoke-expiring');
    await expiring.getByRole('button', { name: 'Revoke Leaked server now' }).click();
    await expiring.waitFor({ state: 'detached' });
    await expectCount(rows.filter({ hasText: 'revoked' }), 1);
    await expectCount(rows.filter({ hasText: 'active' }), 1);
    expect((await call(gw.url, 'GET', '/v1/balances', { token: leaked })).status).toBe(401);
    expect((await call(gw.url, 'GET', '/v1/balances', { token: newKey })).status).toBe(200);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a new live key shown once is dropped from the page when the switch turns to test data',
  async () => {
    await page.getByLabel('Name').fill('Left on screen');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key “Left on screen”' });
    expect(await shown.getByRole('textbox').inputValue()).toMatch(/^ck_live_/);
    await page.getByRole('switch', { name: 'Test data' }).check();
    await page.getByText('New keys here are test keys (ck_test_…)').waitFor();
    await shown.waitFor({ state: 'detached' });
    expect(await page.locator('[data-secret]').count()).toBe(0);
    await page.getByRole('switch', { name: 'Test data' }).uncheck();
    await page.getByText('New keys here are live keys (ck_live_…)').waitFor();
    await page.getByRole('row').filter({ hasText: 'Left on screen' }).waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a new live endpoint’s signing secret shown once is dropped from the page when the switch turns to test data',
  async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const url = `${receiver.url}/left-on-screen`;
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('region', { name: `Signing secret for ${url}` });
    expect(await shown.getByRole('textbox', { name: `Signing secret for ${url}` }).inputValue()).toMatch(/^[0-9a-f]{64}$/);
    await page.getByRole('switch', { name: 'Test data' }).check();
    await page.getByText('Test mode: you are looking at test data').waitFor();
    await shown.waitFor({ state: 'detached' });
    expect(await page.locator('[data-secret]').count()).toBe(0);
    await page.getByRole('switch', { name: 'Test data' }).uncheck();
    await page.getByRole('heading', { name: url }).waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0);
    const token = (await sessionToken())!;
    const made = (await call(gw.url, 'GET', '/webhook-endpoints', { token })).body.data.find((e: { url: string }) => e.url === url);
    expect((await call(gw.url, 'DELETE', `/webhook-endpoints/${made.id}`, { token })).status).toBe(200);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  },
  FLOW_TIMEOUT_MS,
);

test(
  'the live/test switch shows the test side: no test keys yet, a test banner',
  async () => {
    await page.getByRole('switch', { name: 'Test data' }).check();
    await page.getByText('Test mode: you are looking at test data').waitFor();
    await page.getByText('No test keys yet').waitFor();
    await screenshotBothWidths(page, 'api-keys-test-mode');
    await page.getByRole('switch', { name: 'Test data' }).uncheck();
    await page.getByRole('row').filter({ hasText: 'Checkout server' }).first().waitFor();
  },
  FLOW_TIMEOUT_MS,
);

test(
  'transactions: newest first, a page at a time with the cursor, filtered by status, every field of one',
  async () => {
    // Ten transfers and a failed one (the sandbox rail fails account 0000000001): with the funding, 12 transactions.
    const transfer = (amount: number, account = '0123456789') =>
      call(gw.url, 'POST', '/v1/transfers', {
        token: apiKey,
        body: { currency: 'NGN', amount, account_number: account, bank_code: '058', account_name: 'Ada Obi' },
      });
    for (let amount = 1; amount <= 10; amount++) expect((await transfer(amount)).body.data.status).toBe('completed');
    expect((await transfer(7, '0000000001')).body.data.status).toBe('failed');

    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await page.getByLabel('Rows').selectOption('10');
    const table = page.getByRole('table', { name: 'Transactions' });
    const rows = table.locator('tbody tr');
    await expectText(rows.first(), 'failed');
    await expectCount(rows, 10);
    // Amounts for people in the list; exactly as the API gives them in a transaction's detail (below).
    await expectText(rows.nth(1), '₦10.00');
    await screenshotBothWidths(page, 'transactions');

    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByText('Page 2').waitFor();
    await expectText(rows.last(), 'Test funding');
    await expectCount(rows, 2);
    await expect(page.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
    // The page is in the address too: a reload stays on page 2.
    await page.reload();
    await page.getByText('Page 2').waitFor();
    await expectCount(rows, 2);
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByText('Page 1').waitFor();

    await page.getByLabel('Status').selectOption('failed');
    await expectCount(rows.filter({ hasText: 'completed' }), 0);
    await expectText(rows.first(), '0000000001');
    await expectCount(rows, 1);
    await rows.first().locator('summary').click();
    const detail = rows.first().locator('dl');
    await expectText(detail, "Rail's reference");
    await expectText(detail, '7.000000 NGN');
    // The events it produced (GET /transactions/:reference), read when the detail opens.
    await expectText(rows.first(), 'transfer.failed');
    // The filter and the open transaction are in the address: the same link (a reload) opens the same view.
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await expectCount(rows, 1);
    await expectText(rows.first().locator('details[open] dl'), '7.000000 NGN');
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('failed');
    await screenshotBothWidths(page, 'transactions-detail');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a reversed transfer shows reversed, and its reversal credit and the payout link to each other',
  async () => {
    // The sandbox bank returns a transfer to 0000000003 about 2 s after it completed.
    const sent = await call(gw.url, 'POST', '/v1/transfers', {
      token: apiKey,
      body: { currency: 'NGN', amount: 3, account_number: '0000000003', bank_code: '058', account_name: 'Ada Obi' },
    });
    expect(sent.body.data.status).toBe('completed');
    const reference: string = sent.body.data.reference;
    await waitFor(async () => (await gw.env.db.ledgerTransaction.findFirst({ where: { reference, status: 'reversed' } })) !== null, 15_000);

    // A fresh load: no filter left from before.
    await page.goto('/dashboard/transactions');
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    const rows = page.getByRole('table', { name: 'Transactions' }).locator('tbody tr');
    // Newest first: the reversal credit, then the payout it gives back.
    await expectText(rows.first(), 'Gives back');
    await expectText(rows.first(), reference);
    const payout = rows.filter({ hasText: 'Reversed: the money came back as' });
    await expectText(payout, 'reversed');
    await screenshotBothWidths(page, 'transactions-reversal');
    // The credit's link opens the ledger searched for the payout: the payout and its reversal (whose key names it), nothing else.
    await rows.first().getByRole('link', { name: reference }).click();
    await expectCount(rows, 2);
    await expectText(rows.nth(1), 'reversed');
    await expectText(rows.nth(1), reference);
    await expect(page.getByLabel('Search').inputValue()).resolves.toBe(reference);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a session ended elsewhere returns to sign-in with the reason; sign out ends the session on the server',
  async () => {
    const token = (await sessionToken())!;
    expect((await call(gw.url, 'POST', '/auth/logout', { token })).status).toBe(200);
    // The next request the page makes (here, those of a fresh load of the webhooks page) gets 401.
    await page.goto('/dashboard/webhooks');
    await expectText(page.getByRole('status').filter({ hasText: 'You were signed out' }), 'This session has ended; sign in again');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signing in lands on the page the address names.
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const second = (await sessionToken())!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor();
    expect(await sessionToken()).toBeNull();
    expect((await call(gw.url, 'GET', '/webhook-endpoints', { token: second })).status).toBe(401);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'keyboard only: the skip link, the navigation and a visible focus ring',
  async () => {
    await signIn();
    // A fresh load leaves the focus at the top of the document.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    await expectText(focused, 'Skip to content');
    await page.keyboard.press('Tab');
    await expectText(focused, 'Home');
    await expect(focused.evaluate((el) => (globalThis as any).getComputedStyle(el).outlineStyle)).resolves.toBe('solid');
    await page.keyboard.press('Tab');
    await expectText(focused, 'Transactions');
    await page.keyboard.press('Tab');
    await expectText(focused, 'Payouts');
    for (const next of ['Approvals', 'Deposits', 'Verifications', 'API keys']) {
      await page.keyboard.press('Tab');
      await expectText(focused, next);
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    // Opened from the navigation: the new page's heading has the focus.
    await expectText(focused, 'API keys');
    await expect(focused.evaluate((el) => el.tagName)).resolves.toBe('H1');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a link opened in a new tab of the same browser opens signed in; signing out in one tab signs out the other; another browser is not let in',
  async () => {
    // Signed in (the test before leaves the page signed in; alone, it signs in).
    await page.goto('/dashboard');
    if (!(await sessionToken())) await signIn();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    const token = await sessionToken();
    const tab = await page.context().newPage();
    try {
      // The new tab asks the signed-in tab for the session and opens the page the link names.
      await tab.goto('/dashboard/transactions?type=debit');
      await tab.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      expect(await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session'))).toBe(token);
      // Another browser (its own storage and channels) is asked to sign in.
      const stranger = await newDashboardPage(stack.browser, gw.url);
      try {
        await stranger.goto('/dashboard/transactions');
        await stranger.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor();
      } finally {
        await stranger.context().close();
      }
      // Signing out here ends the session in the other tab at once.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor();
      expect(await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session'))).toBeNull();
    } finally {
      await tab.close();
    }
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(stack.problems).toEqual([]);
});

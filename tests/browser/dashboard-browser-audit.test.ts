// Risk: an Audit page that renders but misleads or leaks: rows that are not
// the trail the API holds, filters that do not filter, a test-side action not
// marked test, a CSV that is not the filtered set, or a member shown the trail.
// Headless Chromium (Debian's package, driven by playwright-core) against a
// gateway on a fresh database; screenshots go to test-artifacts/dashboard/.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { rememberSecret } from '@cowrie/testing';
import { call, type startTestGateway } from '@cowrie/gateway/testing';
import { newDashboardPage, startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let stack: Awaited<ReturnType<typeof startBrowserStack>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let page: Page;
const FLOW_TIMEOUT_MS = 90_000;

beforeAll(async () => {
  stack = await startBrowserStack({ workspace: 'Audited Ltd', fundNgn: '100' });
  ({ gw, page } = stack);
  await signInThroughForm(page, stack.user);
}, 60_000);
afterAll(() => stack?.close());

const sessionToken = async (on: Page) => (await on.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session') as string))!;

test(
  'an owner reads the trail: every action with who and from where, filtered by action and who, test actions marked, and the filtered CSV',
  async () => {
    const token = await sessionToken(page);
    // Some history: a wrong password, a key on each side, an endpoint, an invited member.
    rememberSecret('a wrong guess at it');
    expect((await call(gw.url, 'POST', '/auth/login', { body: { email: stack.user.email, password: 'a wrong guess at it' } })).status).toBe(401);
    const live = await call(gw.url, 'POST', '/api-keys', { token, body: { name: 'Checkout', scopes: ['read'] } });
    const test = await call(gw.url, 'POST', '/api-keys', { token, body: { name: 'CI', scopes: ['read'] }, headers: { 'Cowrie-Mode': 'test' } });
    rememberSecret(live.body.data.key);
    rememberSecret(test.body.data.key);
    const hook = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${stack.receiver.url}/audit` } });
    expect(hook.status).toBe(201);
    const invited = await call(gw.url, 'POST', '/users', { token, body: { email: 'reader@audited.test', role: 'member' } });
    rememberSecret(invited.body.data.one_time_password);

    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
    const rows = page.getByRole('table', { name: 'Audit trail' }).locator('tbody tr');
    // The operator's sign-in through the form, the failed one, two keys, the endpoint, the invitation.
    await expectCount(rows, 6);
    await expectText(rows.first(), 'user.invited');
    await expectText(rows.first(), 'reader@audited.test');
    await expectText(rows.filter({ hasText: 'user.sign_in_failed' }), 'nobody signed in');
    await expectText(rows.filter({ hasText: 'user.sign_in_failed' }), stack.user.email);
    const testKeyRow = rows.filter({ hasText: test.body.data.prefix });
    await expectText(testKeyRow, 'test');
    await expectCount(testKeyRow.locator('.badge-test'), 1);
    await expectCount(rows.filter({ hasText: live.body.data.prefix }).locator('.badge-test'), 0);
    await expectText(rows.first(), '127.0.0.1');
    await screenshotBothWidths(page, 'audit');

    await page.getByLabel('Action').selectOption('api_key.created');
    await expectCount(rows, 2);
    await page.getByLabel('Who').fill(stack.user.email.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await expectCount(rows, 2);
    await page.getByLabel('Action').selectOption('');
    await expectCount(rows, 5);
    await page.getByLabel('Action').selectOption('api_key.created');
    await expectCount(rows, 2);
    await screenshotBothWidths(page, 'audit-filtered');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-events-\d{4}-\d{2}-\d{2}\.csv$/);
    await expectText(page.getByRole('status'), 'Downloaded audit-events-');
    const csv = parse(await readFile((await download.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const listed = (await call(gw.url, 'GET', `/audit-events?action=api_key.created&actor=${encodeURIComponent(stack.user.email)}`, { token })).body.data;
    expect(csv.map((r) => r.id)).toEqual(listed.map((r: { id: number }) => String(r.id)));
    expect(csv.map((r) => [r.action, r.livemode])).toEqual([
      ['api_key.created', 'false'],
      ['api_key.created', 'true'],
    ]);
    expect(stack.problems).toEqual([]);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a member is not shown the way to the trail, and the page refuses them',
  async () => {
    const token = await sessionToken(page);
    const invited = await call(gw.url, 'POST', '/users', { token, body: { email: 'member@audited.test', role: 'member' } });
    rememberSecret(invited.body.data.one_time_password);
    // Onboarded through the API (its one-time password replaced), then signed in through the form.
    const first = await call(gw.url, 'POST', '/auth/login', { body: { email: 'member@audited.test', password: invited.body.data.one_time_password } });
    rememberSecret('the member chose this one');
    const changed = await call(gw.url, 'POST', '/auth/password', {
      token: first.body.data.token,
      body: { current_password: invited.body.data.one_time_password, new_password: 'the member chose this one' },
    });
    expect(changed.status).toBe(200);
    const member = await newDashboardPage(stack.browser, gw.url);
    const problems = watchPageProblems(member);
    await signInThroughForm(member, { email: 'member@audited.test', password: 'the member chose this one' });
    await member.getByRole('link', { name: 'Team' }).waitFor();
    expect(await member.getByRole('link', { name: 'Audit' }).count()).toBe(0);

    await member.goto('/dashboard/audit');
    await member.getByText('Only owners and admins can read the audit trail.').waitFor();
    expect(await member.getByRole('table', { name: 'Audit trail' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await member.context().close();
  },
  FLOW_TIMEOUT_MS,
);

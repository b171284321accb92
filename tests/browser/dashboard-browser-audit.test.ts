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

/** A user the owner invites with `role`, onboarded through the API (their one-time password replaced by `password`), signed in on a page of their own. */
async function signedInAs(email: string, role: 'admin' | 'member', password: string): Promise<{ page: Page; problems: string[] }> {
  const invited = await call(gw.url, 'POST', '/users', { token: await sessionToken(page), body: { email, role } });
  expect(invited.status).toBe(201);
  rememberSecret(invited.body.data.one_time_password);
  const first = await call(gw.url, 'POST', '/auth/login', { body: { email, password: invited.body.data.one_time_password } });
  rememberSecret(password);
  const changed = await call(gw.url, 'POST', '/auth/password', {
    token: first.body.data.token,
    body: { current_password: invited.body.data.one_time_password, new_password: password },
  });
  expect(changed.status).toBe(200);
  const their = await newDashboardPage(stack.browser, gw.url);
  const problems = watchPageProblems(their);
  await signInThroughForm(their, { email, password });
  return { page: their, problems };
}

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
    // Onboarded through the API (its one-time password replaced), then signed in through the form.
    const { page: member, problems } = await signedInAs('member@audited.test', 'member', 'the member chose this one');
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

test(
  'while the page does not yet know the user’s role it offers no change and no note; a member then gets the note, never a form',
  async () => {
    const token = await sessionToken(page);
    const hookUrl = `${stack.receiver.url}/role-unknown`;
    const hook = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: hookUrl } });
    expect(hook.status).toBe(201);
    rememberSecret(hook.body.data.secret);
    const member = await signedInAs('waits.for.role@audited.test', 'member', 'a member waits for the role');
    // The team list (where the page learns the role) is held back until the endpoints are on screen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await member.page.route(
      (url) => url.pathname === '/users',
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await member.page.goto('/dashboard/webhooks');
    await member.page.getByRole('heading', { name: hookUrl }).waitFor();
    expect(await member.page.getByRole('button', { name: 'Add an endpoint' }).count()).toBe(0);
    expect(await member.page.getByRole('button', { name: 'Send test ping' }).count()).toBe(0);
    expect(await member.page.getByText('Only owners and admins add, change').count()).toBe(0);
    release();
    await member.page.getByText('Only owners and admins add, change, test or delete endpoints and resend deliveries.').waitFor();
    expect(await member.page.getByRole('button', { name: 'Add an endpoint' }).count()).toBe(0);
    expect(member.problems).toEqual([]);
    await member.page.context().close();
    expect((await call(gw.url, 'DELETE', `/webhook-endpoints/${hook.body.data.id}`, { token })).status).toBe(200);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'when the team list cannot be read, the page says so where the changes would be, instead of silently offering none',
  async () => {
    const admin = await signedInAs('cannot.read.role@audited.test', 'admin', 'an admin whose role is unread');
    const teamList = (url: URL) => url.pathname === '/users';
    await admin.page.route(teamList, (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'rate_limited', message: 'Rate limit exceeded' } }),
      }),
    );
    await admin.page.goto('/dashboard/webhooks');
    await expectText(admin.page.getByRole('alert').filter({ hasText: 'Your role could not be read' }), 'Rate limit exceeded');
    expect(await admin.page.getByRole('button', { name: 'Add an endpoint' }).count()).toBe(0);
    await admin.page.unroute(teamList);
    await admin.page.reload();
    await admin.page.getByRole('button', { name: 'Add an endpoint' }).waitFor();
    expect(await admin.page.getByText('Your role could not be read').count()).toBe(0);
    await admin.page.context().close();
  },
  FLOW_TIMEOUT_MS,
);

/**
 * The write controls each page offers, counted once the page knows the
 * user's role: a member's pages say who may change things instead (the
 * note), an admin's show the controls.
 */
async function writeControls(on: Page, role: 'admin' | 'member', hookUrl: string): Promise<Record<string, number>> {
  const count = (name: string, locator: ReturnType<Page['locator']>) => locator.count().then((n) => [name, n] as const);
  const ready = (note: string, control: ReturnType<Page['locator']>) => (role === 'member' ? on.getByText(note).waitFor() : control.first().waitFor());
  const found: (readonly [string, number])[] = [];

  await on.goto('/dashboard/payouts');
  const beneficiaries = on.getByRole('table', { name: 'Beneficiaries' });
  await beneficiaries.locator('tbody tr').filter({ hasText: '0123456789' }).waitFor();
  await ready('Only owners and admins send payouts and add or remove beneficiaries.', on.getByRole('button', { name: 'Check the account' }));
  if (role === 'member') await screenshotBothWidths(on, 'payouts-member');
  found.push(
    await count('Send a transfer', on.getByRole('form', { name: 'Send a transfer' })),
    await count('Check the account', on.getByRole('button', { name: 'Check the account' })),
    await count('Withdraw to a beneficiary', on.getByRole('form', { name: 'Withdraw to a beneficiary' })),
    await count('Add a beneficiary', on.getByRole('button', { name: 'Add a beneficiary' })),
    await count('Remove (beneficiary)', beneficiaries.getByRole('button', { name: 'Remove' })),
  );

  await on.goto('/dashboard/api-keys');
  await on.locator('tbody tr').filter({ hasText: 'Reconciliation' }).waitFor();
  await ready('Only owners and admins create, roll or revoke API keys.', on.getByRole('button', { name: 'Create key' }));
  if (role === 'member') await screenshotBothWidths(on, 'api-keys-member');
  found.push(
    await count('Create key', on.getByRole('button', { name: 'Create key' })),
    await count('Roll', on.getByRole('button', { name: /^Roll / })),
    await count('Revoke', on.getByRole('button', { name: 'Revoke' })),
  );

  await on.goto('/dashboard/webhooks');
  await on.getByRole('heading', { name: hookUrl }).waitFor();
  await ready('Only owners and admins add, change, test or delete endpoints and resend deliveries.', on.getByRole('button', { name: 'Add an endpoint' }));
  const log = on.getByRole('table', { name: 'Webhook deliveries' });
  await log
    .getByRole('button', { name: /^Details/ })
    .first()
    .click();
  await on
    .getByRole('region', { name: /^Delivery #/ })
    .getByRole('heading', { name: 'Payload' })
    .waitFor();
  if (role === 'member') await screenshotBothWidths(on, 'webhooks-member');
  for (const name of ['Add an endpoint', 'Send test ping', 'Edit', 'Recover since…', 'Roll secret', 'Delete', 'Resend'])
    found.push(await count(name, on.getByRole('button', { name, exact: true })));

  await on.goto('/dashboard/team');
  const users = on.getByRole('table', { name: 'Users' });
  await users.locator('tbody tr').filter({ hasText: '(you)' }).waitFor();
  found.push(
    await count('Invite a user', on.getByRole('button', { name: 'Invite a user' })),
    await count('Remove (user)', users.getByRole('button', { name: 'Remove' })),
  );
  return Object.fromEntries(found);
}

test(
  'a member is offered no change (payouts, beneficiaries, keys, endpoints, deliveries, invitations), each page saying who may; an admin is offered them',
  async () => {
    const token = await sessionToken(page);
    // Something to change on each page: a beneficiary, a key, an endpoint with a delivery.
    const saved = await call(gw.url, 'POST', '/beneficiaries', { token, body: { account_number: '0123456789', bank_code: '058', currency: 'NGN' } });
    expect(saved.status).toBe(201);
    const key = await call(gw.url, 'POST', '/api-keys', { token, body: { name: 'Reconciliation', scopes: ['read'] } });
    expect(key.status).toBe(201);
    rememberSecret(key.body.data.key);
    const hookUrl = `${stack.receiver.url}/roles`;
    const hook = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: hookUrl } });
    expect(hook.status).toBe(201);
    rememberSecret(hook.body.data.secret);
    expect((await call(gw.url, 'POST', `/webhook-endpoints/${hook.body.data.id}/test`, { token })).status).toBe(200);

    const member = await signedInAs('reads.only@audited.test', 'member', 'a member reads only');
    const offered = await writeControls(member.page, 'member', hookUrl);
    expect(Object.entries(offered).filter(([, n]) => n > 0)).toEqual([]);
    expect(member.problems).toEqual([]);
    await member.page.context().close();

    const admin = await signedInAs('changes.things@audited.test', 'admin', 'an admin changes things');
    const adminOffered = await writeControls(admin.page, 'admin', hookUrl);
    expect(Object.entries(adminOffered).filter(([, n]) => n === 0)).toEqual([]);
    expect(admin.problems).toEqual([]);
    await admin.page.context().close();
  },
  FLOW_TIMEOUT_MS,
);

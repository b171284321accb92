// Risk: the dashboard's operations pages that render but do not work: a
// failed webhook that cannot be resent from the page (or is resent under a new
// delivery id, so the receiver cannot deduplicate it), an endpoint Cowrie
// switched off that cannot be turned back on, a CSV download that is not the
// filtered set the page shows. Headless Chromium (Debian's package, driven by
// playwright-core) against a gateway, a webhook worker and a payout worker on
// a fresh database; screenshots go to test-artifacts/dashboard/.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { waitFor, type HttpReceiver } from '@cowrie/testing';
import { call, type startTestGateway } from '@cowrie/gateway/testing';
import { startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, screenshotWindow, signInThroughForm } from './browser';

let stack: Awaited<ReturnType<typeof startBrowserStack>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let apiKey: string;
let receiver: HttpReceiver;
let page: Page;
/** Each flow's limit: a passing run takes a few seconds; a loaded CI machine gets room. */
const FLOW_TIMEOUT_MS = 60_000;

beforeAll(async () => {
  stack = await startBrowserStack({ workspace: 'Operations Ltd', fundNgn: '5000' });
  ({ gw, apiKey, receiver, page } = stack);
  await signInThroughForm(page, stack.user);
}, 60_000);
afterAll(() => stack?.close());

const sessionToken = async () => (await page.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session') as string))!;

test(
  'webhooks: a failed delivery is resent from its detail once the receiver is back, and arrives with the same delivery id; both dispatches are in the log',
  async () => {
    const url = `${receiver.url}/flaky`;
    let down = true;
    receiver.reply = () => (down ? { status: 503, body: 'down for maintenance' } : { status: 200, body: 'ok' });
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.keyboard.type(url);
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    await page
      .getByRole('region', { name: `Signing secret for ${url}` })
      .getByRole('button', { name: 'I have stored it' })
      .click();
    const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    await expectText(endpoint.getByRole('status'), 'Test ping failed: HTTP 503');
    const first = receiver.requests.find((r) => r.path === '/flaky')!;
    const deliveryId = String(first.headers['x-cowrie-delivery']);

    // The failed delivery in the log, filtered to failures; its detail shows what was sent and what came back.
    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    await page.getByLabel('Outcome').selectOption({ label: 'Failed' });
    const failedRow = log.getByRole('row').filter({ hasText: deliveryId });
    await expectText(failedRow, 'failed');
    await expectText(failedRow, 'dispatch 0');
    await failedRow.getByRole('button', { name: /^Details/ }).click();
    const detail = page.getByRole('region', { name: /^Delivery #/ });
    await expectText(detail, 'down for maintenance');
    await expectText(detail, 'x-cowrie-signature');
    await expectText(detail, deliveryId);
    // Opened from the button: the detail's heading has the focus.
    await expect(page.locator(':focus').evaluate((el) => el.tagName)).resolves.toBe('H3');
    await screenshotBothWidths(page, 'webhooks-delivery-detail');

    down = false;
    const before = receiver.requests.filter((r) => r.path === '/flaky').length;
    await detail.getByRole('button', { name: 'Resend' }).click();
    await expectText(detail.getByRole('status'), `dispatch 1, same delivery id ${deliveryId}`);
    const resent = await waitFor(() => receiver.requests.filter((r) => r.path === '/flaky')[before]);
    expect(resent.headers['x-cowrie-delivery']).toBe(deliveryId);
    expect(JSON.parse(resent.rawBody.toString()).id).toBe(deliveryId);

    // Both dispatches of the delivery in the log: the failed first send and the delivered resend.
    await page.getByLabel('Outcome').selectOption({ label: 'Any' });
    const rows = log.getByRole('row').filter({ hasText: deliveryId });
    await waitFor(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await rows.count()) === 2;
    }, 20_000);
    await expectText(rows.filter({ hasText: 'dispatch 1' }), 'delivered');
    await expectText(rows.filter({ hasText: 'dispatch 0' }), 'failed');
    const api = (await call(gw.url, 'GET', '/webhook-deliveries', { token: await sessionToken() })).body.data;
    expect(api.filter((d: { deliveryId: string }) => d.deliveryId === deliveryId).map((d: { dispatch: number; ok: number }) => [d.dispatch, d.ok])).toEqual([
      [1, 1],
      [0, 0],
    ]);
    await screenshotBothWidths(page, 'webhooks-resent');
    // docs/dashboard.png (the README's) is a copy of this one.
    await screenshotWindow(page, 'readme-webhooks');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'webhooks: recover since a time says how many failed deliveries were queued; an endpoint Cowrie switched off shows why and turns back on',
  async () => {
    const url = `${receiver.url}/flaky`;
    const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    await endpoint.getByRole('button', { name: 'Recover since…' }).click();
    const form = page.getByRole('form', { name: `Recover failed deliveries to ${url}` });
    await form.getByLabel('Send again every failed delivery since').fill('2020-01-01T00:00');
    await form.getByRole('button', { name: 'Recover' }).click();
    // Only a test ping failed, and pings are not recovered: the API queued none, and the page says so.
    await expectText(form.getByRole('status'), 'No failed deliveries since then');
    await screenshotBothWidths(page, 'webhooks-recover');
    await form.getByRole('button', { name: 'Close' }).click();

    // The worker's automatic disable, as it leaves the row (its own tests cover when it decides to).
    const id = Number(
      (await call(gw.url, 'GET', '/webhook-endpoints', { token: await sessionToken() })).body.data.find((e: { url: string }) => e.url === url).id,
    );
    const reason = 'Every delivery failed for 3 days (last: HTTP 503)';
    await gw.env.db.webhookEndpoint.update({ where: { id }, data: { active: false, disabledReason: reason, disabledAt: new Date() } });
    await page.reload();
    await expectText(endpoint, 'Switched off automatically');
    await expectText(endpoint, reason);
    await expectText(endpoint, 'inactive');
    await screenshotBothWidths(page, 'webhooks-disabled');
    await endpoint.getByRole('button', { name: 'Turn back on' }).click();
    await endpoint.getByText('Switched off automatically').waitFor({ state: 'detached' });
    await expectText(endpoint, 'active');
    const after = (await call(gw.url, 'GET', '/webhook-endpoints', { token: await sessionToken() })).body.data.find((e: { id: number }) => e.id === id);
    expect(after).toMatchObject({ active: true, disabled_reason: null, disabled_at: null });
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a list whose refresh fails keeps what it showed, with the reason beside it',
  async () => {
    const url = `${receiver.url}/flaky`;
    const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    await endpoint.waitFor();
    // The save is accepted; the list's refresh after it is refused.
    const refused = (u: URL) => u.pathname === '/webhook-endpoints';
    await page.route(refused, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 429,
            contentType: 'application/json',
            body: JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limited', message: 'Too many requests' } }),
          })
        : route.continue(),
    );
    await endpoint.getByRole('button', { name: 'Edit' }).click();
    await page
      .getByRole('form', { name: `Edit endpoint ${url}` })
      .getByRole('button', { name: 'Save' })
      .click();
    await expectText(page.getByRole('alert').filter({ hasText: 'Endpoints could not be loaded' }), 'Too many requests');
    // What was loaded before is still on screen.
    await expectText(endpoint, 'active');
    await page.unroute(refused);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'transactions: filter by type, date and a counterparty search; the downloaded CSV is the filtered set the API lists',
  async () => {
    const transfer = (amount: string, name: string, account: string) =>
      call(gw.url, 'POST', '/v1/transfers', {
        token: apiKey,
        body: { currency: 'NGN', amount, account_number: account, bank_code: '058', account_name: name },
      });
    const sent: [string, string, string][] = [
      ['10.5', 'Ada Obi', '0123456789'],
      ['20.25', 'Chidi Eze', '0123456788'],
      ['30', 'Ada Obi', '0123456789'],
      ['40', 'Ngozi Ada', '0123456787'],
    ];
    for (const [amount, name, account] of sent) await transfer(amount, name, account);

    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    const rows = page.getByRole('table', { name: 'Transactions' }).locator('tbody tr');
    await page.getByLabel('Type').selectOption('debit');
    await expectCount(rows.filter({ hasText: 'Test funding' }), 0);
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    await page.getByLabel('From').fill(day);
    await page.getByLabel('Until').fill(day);
    await page.getByLabel('Search').fill('ada obi');
    await page.getByRole('button', { name: 'Search' }).click();
    await expectCount(rows, 2);
    await expectText(rows.first(), '₦30.00');
    await expectText(rows.last(), '₦10.50');
    await screenshotBothWidths(page, 'transactions-filtered');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^transactions-\d{4}-\d{2}-\d{2}\.csv$/);
    await expectText(page.getByRole('status'), 'Downloaded transactions-');
    const csv = (await readFile((await download.path())!, 'utf8')).trim().split(/\r?\n/);
    const listed = (
      await call(gw.url, 'GET', `/transactions?type=debit&search=ada%20obi&from=${encodeURIComponent(new Date(`${day}T00:00`).toISOString())}`, {
        token: await sessionToken(),
      })
    ).body.data;
    expect(csv[0]!.split(',').slice(0, 3)).toEqual(['reference', 'created_at', 'type']);
    expect(csv).toHaveLength(1 + listed.length);
    expect(listed).toHaveLength(2);
    csv.slice(1).forEach((line, i) => {
      const cells = line.split(',');
      expect(cells[0]).toBe(listed[i].reference);
      expect(cells[8]).toBe(listed[i].amount);
    });
  },
  FLOW_TIMEOUT_MS,
);

test(
  'payouts: a transfer from the form names the account holder before it is confirmed, shows the API pre-flight error, and lands in the transactions list',
  async () => {
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await page.getByText('No beneficiaries yet. Add the accounts').waitFor();
    const form = page.getByRole('form', { name: 'Send a transfer' });
    const account = (await call(gw.url, 'POST', '/v1/banks/resolve', { token: apiKey, body: { account_number: '0123456780', bank_code: '058' } })).body.data;
    await form.getByLabel('Bank').selectOption('058');
    await form.getByLabel('Account number').fill('0123456780');
    await form.getByLabel('Amount (NGN)').fill('999999.99');
    await form.getByRole('button', { name: 'Check the account' }).click();
    const confirm = page.getByRole('region', { name: 'Confirm the payout' });
    // The account holder's name, as the bank lookup gives it, before anything is sent.
    await expectText(confirm, `Send 999999.99 NGN to ${account.accountName}, 0123456780 at ${account.bankName}?`);
    await screenshotBothWidths(page, 'payouts-confirm');
    await confirm.getByRole('button', { name: 'Confirm and send' }).click();
    // The API's pre-flight refusal, in its words.
    await expectText(page.getByRole('alert'), 'Not sent: Exceeds balance:');

    await form.getByLabel('Amount (NGN)').fill('25.75');
    await form.getByRole('button', { name: 'Check the account' }).click();
    await confirm.getByRole('button', { name: 'Confirm and send' }).click();
    const sent = page.getByRole('status').filter({ hasText: 'Sent:' });
    await expectText(sent, `25.750000 NGN to ${account.accountName}`);
    const reference = (await sent.locator('.mono').textContent())!;
    expect(reference).toMatch(/^snd_/);
    await screenshotBothWidths(page, 'payouts-sent');
    await sent.getByRole('link', { name: 'See it in Transactions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    const row = page.getByRole('table', { name: 'Transactions' }).locator('tbody tr').filter({ hasText: reference });
    await expectText(row, '₦25.75');
    await expectText(row, 'completed');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'payouts: add a beneficiary (its name looked up), withdraw to it after confirming, remove it',
  async () => {
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('button', { name: 'Add a beneficiary' }).click();
    const add = page.getByRole('form', { name: 'Add a beneficiary' });
    await add.getByLabel('Bank').selectOption('058');
    await add.getByLabel('Account number').fill('0123456781');
    await add.getByRole('button', { name: 'Add beneficiary' }).click();
    await add.waitFor({ state: 'detached' });
    const saved = (await call(gw.url, 'GET', '/v1/beneficiaries', { token: apiKey })).body.data[0];
    const row = page.getByRole('table', { name: 'Beneficiaries' }).getByRole('row').filter({ hasText: '0123456781' });
    await expectText(row, saved.name);
    await screenshotBothWidths(page, 'payouts-beneficiaries');

    const withdraw = page.getByRole('form', { name: 'Withdraw to a beneficiary' });
    await withdraw.getByLabel('Beneficiary').selectOption({ label: `${saved.name} · 0123456781 · ${saved.bank_name} (NGN)` });
    await withdraw.getByLabel('Amount (NGN)').fill('3');
    await withdraw.getByRole('button', { name: 'Continue' }).click();
    const confirm = page.getByRole('region', { name: 'Confirm the payout' });
    await expectText(confirm, `Withdraw 3 NGN to ${saved.name}`);
    await confirm.getByRole('button', { name: 'Confirm and send' }).click();
    await expectText(page.getByRole('status').filter({ hasText: 'Sent:' }), `3.000000 NGN to ${saved.name}`);

    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: `Remove ${saved.name}` }).click();
    await page.getByText('No beneficiaries yet. Add the accounts').waitFor();
    expect((await call(gw.url, 'GET', '/v1/beneficiaries', { token: apiKey })).body.data[0]).toMatchObject({ id: saved.id, active: false });
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(stack.problems).toEqual([]);
});

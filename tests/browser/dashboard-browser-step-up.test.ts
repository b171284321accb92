// Risk: a guarded change from the dashboard's own forms with a session whose
// sign-in is older than STEP_UP_SECONDS: a transfer refused with no way to
// confirm, or sent twice once the user confirmed (a new Idempotency-Key on
// the repeat, so two debits); a webhook endpoint (a new URL that receives the
// payout events) added without asking. Headless Chromium against a gateway
// and payout worker on a fresh database; screenshots go to
// test-artifacts/dashboard/.
import { rememberSecret } from '@cowrie/testing';
import { call, sessionSignedInAgo } from '@cowrie/gateway/testing';
import { startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, signInThroughForm } from './browser';

let stack: Awaited<ReturnType<typeof startBrowserStack>>;
const FLOW_TIMEOUT_MS = 90_000;

beforeAll(async () => {
  stack = await startBrowserStack({ workspace: 'Stale Sessions Ltd', fundNgn: '1000' });
  await signInThroughForm(stack.page, stack.user);
}, 60_000);
afterAll(() => stack?.close());

/** Replaces this tab's session with one of the same user that signed in STEP_UP_SECONDS (300) and a second ago, and opens `path`. */
async function useStaleSession(path: string, heading: string) {
  const token = await sessionSignedInAgo(stack.gw, stack.user, 301);
  await stack.page.evaluate((t) => (globalThis as any).sessionStorage.setItem('cowrie.dashboard.session', t), token);
  await stack.page.goto(path);
  await stack.page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

test(
  'a stale session sending a transfer from Payouts is asked for the password, then the transfer goes once, under the same Idempotency-Key',
  async () => {
    const { page, gw } = stack;
    const keys: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/transfers') keys.push(req.headers()['idempotency-key'] ?? '');
    });
    await useStaleSession('/dashboard/payouts', 'Payouts');
    const form = page.getByRole('form', { name: 'Send a transfer' });
    await form.getByLabel('Bank').selectOption('058');
    await form.getByLabel('Account number').fill('0123456789');
    await form.getByLabel('Amount (NGN)').fill('250.5');
    await form.getByRole('button', { name: 'Check the account' }).click();
    await page.getByRole('region', { name: 'Confirm the payout' }).getByRole('button', { name: 'Confirm and send' }).click();

    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password').waitFor();
    // Refused before anything was held: no debit yet.
    expect(await gw.env.db.ledgerTransaction.count({ where: { type: 'debit' } })).toBe(0);
    await screenshotBothWidths(page, 'step-up-transfer');
    await dialog.getByLabel('Password').fill(stack.user.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    const sent = page.getByRole('status').filter({ hasText: 'Sent' });
    await expectText(sent, '250.500000 NGN');
    await screenshotBothWidths(page, 'step-up-transfer-sent');

    // The refused request and its repeat: two sends with one key, and one debit.
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^dash-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const debits = (await call(gw.url, 'GET', '/v1/transactions?type=debit', { token: stack.apiKey })).body.data;
    expect(debits).toHaveLength(1);
    expect(debits[0]).toMatchObject({ amount: '250.500000', status: 'completed', counterpartyAccount: '0123456789' });
    const balances = (await call(gw.url, 'GET', '/v1/balances', { token: stack.apiKey })).body.data;
    expect(balances.find((b: { currency: string }) => b.currency === 'NGN')).toMatchObject({ available: '749.500000' });
  },
  FLOW_TIMEOUT_MS,
);

test(
  'a stale session adding a webhook endpoint is asked for the password first; Cancel adds nothing, confirming adds it once',
  async () => {
    const { page, gw, receiver } = stack;
    const url = `${receiver.url}/new-endpoint`;
    const endpoints = () => gw.env.db.webhookEndpoint.count({ where: { url } });
    await useStaleSession('/dashboard/webhooks', 'Webhooks');
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('alert').filter({ hasText: 'The endpoint was not added: Not done' }).waitFor();
    expect(await endpoints()).toBe(0);

    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    await dialog.getByLabel('Password').fill(stack.user.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const secret = page.getByRole('region', { name: `Signing secret for ${url}` });
    await secret.waitFor();
    rememberSecret(await secret.locator('input[data-secret]').first().inputValue());
    await secret.getByRole('button', { name: 'I have stored it' }).click();
    await expectCount(page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) }), 1);
    expect(await endpoints()).toBe(1);
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(stack.problems).toEqual([]);
});

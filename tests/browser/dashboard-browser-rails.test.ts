// Risk: an operator looking at the dashboard while a payout rail is down and
// seeing nothing of it: payouts quietly go to the second rail while the first
// is passed over, and Home says all is well (or names the wrong rail as
// open). Headless Chromium against a gateway and payout worker with
// PAYOUT_RAILS=paystack,flutterwave over both stand-ins; Paystack refuses one
// payout before accepting it, which opens its breaker. Screenshots go to
// test-artifacts/dashboard/.
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { startFlutterwaveStandIn, type FlutterwaveStandIn } from '@cowrie/rails/testing';
import { call } from '@cowrie/gateway/testing';
import { startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, signInThroughForm } from './browser';

let paystack: PaystackStandIn;
let flutterwave: FlutterwaveStandIn;
let stack: Awaited<ReturnType<typeof startBrowserStack>>;

beforeAll(async () => {
  [paystack, flutterwave] = await Promise.all([startPaystackStandIn(), startFlutterwaveStandIn()]);
  stack = await startBrowserStack({
    workspace: 'Two Rails Ltd',
    fundNgn: '1000',
    env: {
      PAYOUT_RAILS: 'paystack,flutterwave',
      PAYSTACK_SECRET_KEY: paystack.secret,
      PAYSTACK_BASE_URL: paystack.url,
      PAYOUT_FLUTTERWAVE_SECRET_KEY: flutterwave.secret,
      PAYOUT_FLUTTERWAVE_BASE_URL: flutterwave.url,
      PAYOUT_FLUTTERWAVE_WEBHOOK_HASH: flutterwave.hash,
      PAYOUT_RAIL_COOLDOWN_MS: '600000',
    },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await paystack?.close();
  await flutterwave?.close();
});

test('Home lists each payout rail with its breaker: Paystack open (passed over until its cool-down ends) after refusing, Flutterwave closed', async () => {
  const { page, gw } = stack;
  await signInThroughForm(page, stack.user);
  const rails = page.getByRole('table', { name: 'Payout rails in order of preference, and their breakers' }).locator('tbody tr');
  await expectCount(rails, 2);
  await expectText(rails.nth(0), 'Paystack');
  await expectText(rails.nth(0), 'Closed: in use');
  await expectText(rails.nth(1), 'Flutterwave');
  await expectText(rails.nth(1), 'Closed: in use');

  // Paystack refuses before accepting (down): the payout goes to Flutterwave, and Paystack's breaker opens.
  paystack.options.mode = 'error_500';
  const before = Date.now();
  const sent = await call(gw.url, 'POST', '/v1/transfers', {
    token: stack.apiKey,
    body: { currency: 'NGN', amount: 100, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' },
  });
  paystack.options.mode = 'ok';
  expect(sent.body.data).toMatchObject({ status: 'completed', provider: 'flutterwave' });

  await page.reload();
  await expectCount(rails, 2);
  const [paystackRow, flutterwaveRow] = [rails.nth(0), rails.nth(1)];
  await expectText(paystackRow, 'Paystack');
  await expectText(paystackRow, 'Open: passed over');
  await expectText(flutterwaveRow, 'Flutterwave');
  await expectText(flutterwaveRow, 'Closed: in use');
  expect(await paystackRow.locator('td').nth(1).innerText()).toBe('1');
  expect(await flutterwaveRow.locator('td').nth(1).innerText()).toBe('0');
  // Until when: the cool-down's end, as the API gave it (the exact value on hover).
  const until = new Date((await paystackRow.locator('time').getAttribute('datetime'))!).getTime();
  expect(until).toBeGreaterThanOrEqual(before + 600_000);
  expect(until).toBeLessThanOrEqual(Date.now() + 600_000);
  expect(await flutterwaveRow.locator('time').count()).toBe(0);
  await screenshotBothWidths(page, 'home-payout-rails');
  expect(stack.problems).toEqual([]);
}, 90_000);

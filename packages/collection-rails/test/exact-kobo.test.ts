// Risk: kobo rounded through a double on the way to Paystack or back. Above
// 2^53 kobo a double cannot hold every integer, so an account could be opened
// for, or a payment credited as, a neighbouring amount. Kobo leave as the exact
// integer's digits; a notification whose kobo a double has already rounded is
// refused, never credited.
import { Decimal } from '@cowrie/core';
import { createPaystackCollectionRail, parsePaystackNotification } from '../src';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';

const SECRET = 'sk_test_standin_secret_key_exact';
let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
});
afterAll(() => standIn.close());

test('a charge sends its kobo as the exact integer, even beyond what a double holds', async () => {
  const rail = createPaystackCollectionRail({ secretKey: SECRET, baseUrl: standIn.url, timeoutMs: 2000, preferredBank: 'wema-bank' });
  const before = standIn.requests.length;
  // 123456789012345.67 naira is 12345678901234567 kobo; as a double it is ...568.
  await rail.openOneOffAccount({
    reference: 'col_exact',
    merchantReference: 'order-exact',
    amount: new Decimal('123456789012345.67'),
    currency: 'NGN',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
    accountName: 'Acme Ltd',
    customer: { name: 'Ada Obi', email: 'ada@example.com' },
  });
  const [charge] = standIn.requests.slice(before);
  expect(charge).toMatchObject({ path: '/charge', body: { amount: '12345678901234567' } });
});

/** A signed-shape charge.success whose amount is written with exactly these digits. */
const notificationWithKobo = (kobo: string) => {
  const { rawBody } = paystackChargeSuccess(SECRET, { reference: 'T_EXACT', amountKobo: 1, accountNumber: '9930000902' });
  return JSON.parse(rawBody.replace('"amount":1,', `"amount":${kobo},`));
};

test('a notification is read in naira exactly up to 2^53 - 1 kobo', () => {
  const parsed = parsePaystackNotification(notificationWithKobo('9007199254740991'));
  expect(parsed.kind).toBe('transfer');
  expect(parsed.kind === 'transfer' && parsed.transfer.amount.toFixed(6)).toBe('90071992547409.910000');
});

test('a notification whose kobo a double cannot hold is refused, not credited rounded', () => {
  // JSON.parse reads 9007199254740993 as 9007199254740992: the real amount is already lost.
  expect(parsePaystackNotification(notificationWithKobo('9007199254740993'))).toMatchObject({
    kind: 'invalid',
    reason: expect.stringMatching(/^data\.amount/),
  });
});

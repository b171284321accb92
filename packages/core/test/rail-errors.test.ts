// Risk: a rail's failure answered differently from what the API
// documents: a payout route's 502/503/504 with the rail's message, a deposit
// route's 503 naming only the provider, a refused input as a 400 naming the
// field (never a 5xx), or an unrelated error disguised as a provider error.
import { AppError, RailInputError } from '../src/errors';
import { RailError, isRailError, railErrorToAppError, withRailErrors } from '../src/rail-errors';

const opening = { kind: 'unavailable', message: 'The collection rail could not open the account; try again shortly' } as const;

test.each([502, 503, 504] as const)('as reported (payout routes): a rail failure %s keeps its status and message, no details', (status) => {
  const err = new RailError(status, `Paystack said ${status}`, { provider: 'paystack', maybeSent: false, raw: { secret_free: true } });
  const answer = railErrorToAppError(err);
  expect(answer).toBeInstanceOf(AppError);
  expect(answer).toMatchObject({ code: 'provider_error', status, message: `Paystack said ${status}`, details: undefined, cause: err });
});

test.each([502, 503, 504] as const)('unavailable (deposit routes): a rail failure %s is 503 with the route message and the provider', (status) => {
  const err = new RailError(status, 'Paystack did not answer within 500 ms', { provider: 'paystack', maybeSent: true });
  expect(railErrorToAppError(err, opening)).toMatchObject({
    code: 'provider_error',
    status: 503,
    message: opening.message,
    details: { provider: 'paystack' },
  });
});

test('refused input is 400 invalid_request naming the field, however the route answers rail failures', () => {
  const err = new RailInputError('amount must have at most 2 decimal places on this collection rail', 'amount');
  for (const answer of [undefined, opening]) {
    expect(railErrorToAppError(err, answer)).toMatchObject({ code: 'invalid_request', status: 400, message: err.message, details: { field: 'amount' } });
  }
});

test('anything else passes through unchanged, and isRailError tells rail failures apart', async () => {
  const other = new Error('database gone');
  expect(railErrorToAppError(other)).toBe(other);
  expect(railErrorToAppError(other, opening)).toBe(other);
  await expect(withRailErrors(() => Promise.reject(other))).rejects.toBe(other);
  await expect(withRailErrors(() => Promise.resolve(7))).resolves.toBe(7);
  const railError = new RailError(502, 'x', { provider: 'sandbox', maybeSent: false });
  await expect(withRailErrors(() => Promise.reject(railError), opening)).rejects.toMatchObject({ status: 503, details: { provider: 'sandbox' } });
  expect(isRailError(railError)).toBe(true);
  expect(isRailError(other)).toBe(false);
});

// Risk: an address past its budget of refused /v1 requests remembered past
// its window (a client shut out after it), or the memory growing without
// bound under many addresses.
import { RefusedAddresses, type FixedWindowHit } from '../src';

const refused = (resetAt: number): FixedWindowHit => ({ limit: 4, count: 5, remaining: 0, resetAt, allowed: false, retryAfterSeconds: 30 });

test('an address past its budget is refused until its window ends, with the seconds left; then forgotten', () => {
  const addresses = new RefusedAddresses();
  const resetAt = 1_000_060;
  addresses.note('192.0.2.7', { ...refused(resetAt), allowed: true, count: 4 });
  expect(addresses.size).toBe(0);
  addresses.note('192.0.2.7', refused(resetAt));
  expect(addresses.refusalFor('192.0.2.7', 1_000_050_000)).toMatchObject({ allowed: false, remaining: 0, limit: 4, retryAfterSeconds: 10 });
  // The same client by its IPv4-mapped form; another address is not refused.
  expect(addresses.refusalFor('::ffff:192.0.2.7', 1_000_050_000)).not.toBeNull();
  expect(addresses.refusalFor('192.0.2.8', 1_000_050_000)).toBeNull();
  expect(addresses.refusalFor('192.0.2.7', 1_000_060_000)).toBeNull();
  expect(addresses.size).toBe(0);
});

test('at most maxAddresses are remembered, the oldest forgotten first', () => {
  const addresses = new RefusedAddresses(2);
  for (const a of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) addresses.note(a, refused(2_000_000_000));
  expect(addresses.size).toBe(2);
  expect(addresses.refusalFor('192.0.2.1', 0)).toBeNull();
  expect(addresses.refusalFor('192.0.2.3', 0)).not.toBeNull();
});

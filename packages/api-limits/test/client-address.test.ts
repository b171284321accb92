// Risk: one IPv6 client taking a fresh per-address budget from each address
// of its /64, or one address counted under two spellings.
import { clientAddressGroup } from '../src/client-address';

test.each([
  ['203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['::FFFF:203.0.113.7', '203.0.113.7'],
  ['2001:db8:5:6::1', '2001:db8:5:6::/64'],
  ['2001:0db8:0005:0006:ffff:ffff:ffff:ffff', '2001:db8:5:6::/64'],
  ['2001:DB8:5:6:aaaa::2', '2001:db8:5:6::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
  ['unknown', 'unknown'],
])('%s is counted as %s', (address, group) => {
  expect(clientAddressGroup(address)).toBe(group);
});

test('the next /64 is another client', () => {
  expect(clientAddressGroup('2001:db8:5:7::1')).not.toBe(clientAddressGroup('2001:db8:5:6::1'));
});

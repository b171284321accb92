import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (no zone, no embedded IPv4 tail), or null. */
function ipv6Groups(address: string): number[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * The unit a per-client-address limit counts: an IPv4 address as it is
 * (an IPv4-mapped IPv6 one, `::ffff:192.0.2.1`, included), an IPv6 address
 * by its /64, the smallest block a home or a host is given, so one client
 * cannot take a fresh budget from each of its 2^64 addresses. Anything else
 * (no address known) is counted as it was given.
 */
export function clientAddressGroup(address: string): string {
  const bare = address.split('%')[0]!.toLowerCase();
  if (isIP(bare) !== 6) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  // An IPv4 tail (::ffff:0:192.0.2.1 and kin) lies in the last 32 bits, outside the /64: read as two zero groups.
  const text = bare.replace(/\d+\.\d+\.\d+\.\d+$/, '0:0');
  const groups = ipv6Groups(text);
  if (!groups) return address;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

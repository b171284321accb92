import { cidrContains as contains, parseCidr, parseIp, type ParsedIp } from '@cowrie/core';

/**
 * SSRF defence for outbound webhooks: which IP addresses a delivery may reach.
 * Loopback, private, link-local, CGNAT, cloud-metadata, unspecified, multicast
 * and reserved ranges (and their IPv6 equivalents, including IPv4 addresses
 * embedded in IPv6) are refused unless they fall in an allowed CIDR
 * (WEBHOOK_ALLOWED_CIDRS; local development and tests allow 127.0.0.0/8).
 */

// Each range gives the reason a delivery may not reach it.
const REFUSED_RANGES: Array<[string, string]> = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001::/32', 'reserved (Teredo)'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'private (unique local, cloud metadata)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];
const REFUSED = REFUSED_RANGES.map(([cidr, reason]) => ({ cidr: parseCidr(cidr), reason }));

const MAPPED = parseCidr('::ffff:0:0/96');
const COMPATIBLE = parseCidr('::/96');
const NAT64 = parseCidr('64:ff9b::/96');
const SIX_TO_FOUR = parseCidr('2002::/16');

/** The address itself plus any IPv4 address a packet to it would reach (mapped, NAT64, 6to4). */
function effectiveAddresses(ip: ParsedIp): ParsedIp[] {
  if (ip.family === 4) return [ip];
  const low32 = { family: 4 as const, value: ip.value & 0xffffffffn };
  if (contains(MAPPED, ip)) return [low32];
  if (contains(COMPATIBLE, ip) && ip.value > 1n) return [ip, low32];
  if (contains(NAT64, ip)) return [ip, low32];
  if (contains(SIX_TO_FOUR, ip)) return [ip, { family: 4, value: (ip.value >> 80n) & 0xffffffffn }];
  return [ip];
}

/** Whether a delivery may connect to an address; a refusal says why (e.g. `loopback`). */
export type AddressVerdict = { kind: 'allowed' } | { kind: 'refused'; reason: string };

export interface AddressPolicy {
  /** Whether a delivery may connect to this IP address. Anything that is not an IP is refused. */
  check(address: string): AddressVerdict;
  readonly allowedCidrs: readonly string[];
}

/** The policy for a deployment; `allowedCidrs` is WEBHOOK_ALLOWED_CIDRS (loadConfig refuses a malformed entry by name; this throws on one). */
export function createAddressPolicy(allowedCidrs: readonly string[] = []): AddressPolicy {
  const allowed = allowedCidrs.map(parseCidr);
  return {
    allowedCidrs: allowed.map((c) => c.text),
    check(address) {
      const ip = parseIp(address);
      if (!ip) return { kind: 'refused', reason: 'not an IP address' };
      for (const eff of effectiveAddresses(ip)) {
        if (allowed.some((c) => contains(c, eff))) continue;
        const hit = REFUSED.find((r) => contains(r.cidr, eff));
        if (hit) return { kind: 'refused', reason: hit.reason };
      }
      return { kind: 'allowed' };
    },
  };
}

/** Raised when a webhook URL resolves only to refused addresses. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${host === address ? address : `${host} resolves to ${address}`}, a ${reason} address; webhooks may not reach it`);
  }
}

/** The AddressRefusedError in `err` or its causes (HTTP clients wrap socket errors), or null. */
export function findAddressRefusal(err: unknown): AddressRefusedError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return null;
}

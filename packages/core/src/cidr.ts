import { isIP } from 'node:net';

// IP addresses and CIDRs as Cowrie reads them: WEBHOOK_ALLOWED_CIDRS (checked
// by loadConfig, read by the webhook address policy of @cowrie/webhooks), and
// the addresses a webhook delivery would reach.

type Family = 4 | 6;

export interface Cidr {
  family: Family;
  base: bigint;
  bits: number;
  text: string;
}

export interface ParsedIp {
  family: Family;
  value: bigint;
}

const V4_MAX_BITS = 32;
const V6_MAX_BITS = 128;

function parseIPv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIPv6(input: string): bigint | null {
  let text = input;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (isIP(text) !== 6) return null;
  // A trailing dotted quad (::ffff:1.2.3.4) is the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - restGroups.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return null;
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...restGroups];
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(parseInt(g, 16));
  return value;
}

/** Parses an IPv4 or IPv6 address (brackets and zone ids tolerated); null when it is not one. */
export function parseIp(address: string): ParsedIp | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIPv4(text);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(text);
  if (v6 !== null) return { family: 6, value: v6 };
  return null;
}

/** Parses `a.b.c.d/n` or `x::y/n` (a bare address means a single host); throws on anything else. */
export function parseCidr(text: string): Cidr {
  const [addr, bitsText, extra] = text.trim().split('/');
  const ip = addr ? parseIp(addr) : null;
  const max = ip?.family === 4 ? V4_MAX_BITS : V6_MAX_BITS;
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!ip || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > max) {
    throw new Error(`not a CIDR: ${JSON.stringify(text)} (expected e.g. 127.0.0.0/8 or ::1/128)`);
  }
  const shift = BigInt(max - bits);
  return { family: ip.family, base: (ip.value >> shift) << shift, bits, text: text.trim() };
}

/** Whether `ip` is in `cidr`. */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt((cidr.family === 4 ? V4_MAX_BITS : V6_MAX_BITS) - cidr.bits);
  return (ip.value >> shift) << shift === cidr.base;
}

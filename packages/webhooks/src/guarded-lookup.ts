import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, type AddressPolicy } from './address-policy';

/** Resolves a host name to every address it has (the system resolver by default). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

const stripBrackets = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * Resolves `host` and keeps only the addresses the policy allows, so the
 * caller connects to an address that was checked (never a second lookup that
 * could answer differently). Throws AddressRefusedError when none is allowed.
 */
export async function resolveAllowedAddresses(host: string, policy: AddressPolicy, resolver: Resolver = systemResolver): Promise<LookupAddress[]> {
  const bare = stripBrackets(host);
  const literal = isIP(bare);
  if (literal) {
    const refusal = refusalOfLiteral(bare, policy);
    if (refusal) throw refusal;
    return [{ address: bare, family: literal }];
  }
  const addresses = await resolver(bare);
  const allowed = addresses.filter((a) => policy.check(a.address).kind === 'allowed');
  if (allowed.length === 0) {
    const first = addresses[0];
    if (!first) throw Object.assign(new Error(`${bare} has no addresses`), { code: 'ENOTFOUND' });
    const verdict = policy.check(first.address);
    throw new AddressRefusedError(bare, first.address, verdict.kind === 'refused' ? verdict.reason : 'refused');
  }
  return allowed;
}

/**
 * For a host that is an IP literal (which net.connect never passes to a
 * lookup), the refusal if the policy refuses it; null for allowed literals and
 * for host names.
 */
export function refusalOfLiteral(host: string, policy: AddressPolicy): AddressRefusedError | null {
  const bare = stripBrackets(host);
  if (!isIP(bare)) return null;
  const verdict = policy.check(bare);
  return verdict.kind === 'allowed' ? null : new AddressRefusedError(bare, bare, verdict.reason);
}

function wantedFamily(family: LookupAddress['family'] | 'IPv4' | 'IPv6' | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `lookup` for net/tls connections that only ever hands back checked
 * addresses: the socket is pinned to an IP the policy allowed at connect time.
 */
export function createGuardedLookup(policy: AddressPolicy, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedAddresses(hostname, policy, resolver).then(
      (addresses) => {
        const family = wantedFamily(options.family);
        const matching = family ? addresses.filter((a) => a.family === family) : addresses;
        if (matching.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no allowed IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          callback(null, matching);
        } else {
          callback(null, matching[0]!.address, matching[0]!.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

// The soak's traffic: a seeded mix of what businesses do through the public
// API, on several lanes at once. Each lane's operations come from its own
// seeded generator, so a seed names the same mix every run.
import { seededRandom } from '@cowrie/testing';
import type { ServiceReplica } from './world';

export interface Business {
  workspaceId: number;
  key: string;
}

/** Every answer the API gave, by status and code, and the answers the interface does not allow. */
export interface AnswerLog {
  counts: Record<string, number>;
  disallowed: Array<{ op: string; status: number; body: unknown }>;
  /** Requests whose gateway died under them (a client retries those). */
  connectionLost: number;
  operations: number;
}

/** Statuses the interface allows: any 2xx and 4xx; a 5xx only as provider_error (502, 503, 504). */
type TBody = { error?: { code?: string }; data?: { reference?: string } } | null;

function allowed(status: number, body: TBody): boolean {
  if (status < 500) return true;
  return [502, 503, 504].includes(status) && body?.error?.code === 'provider_error';
}

export interface Driver {
  log: AnswerLog;
  /** Verification references started, for the checks. */
  verificationReferences: Set<string>;
  stop(): Promise<void>;
}

export function startDriver(opts: {
  seed: number;
  lanes: number;
  businesses: Business[];
  gateways: () => ServiceReplica[];
  readCode: (destination: string, reference: string) => Promise<string | null>;
}): Driver {
  const log: AnswerLog = { counts: {}, disallowed: [], connectionLost: 0, operations: 0 };
  const verificationReferences = new Set<string>();
  let stopping = false;

  const live = () => opts.gateways().filter((g) => g.child && g.child.exitCode === null && g.child.signalCode === null);
  async function call(op: string, business: Business, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    for (let tries = 0; tries < 20; tries++) {
      const gateways = live();
      const gateway = gateways[Math.floor(Math.random() * gateways.length)];
      if (!gateway) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      try {
        const res = await fetch(`${gateway.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${business.key}`, 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        let parsed: TBody = null;
        try {
          parsed = text ? (JSON.parse(text) as TBody) : null;
        } catch {
          parsed = { error: { code: `not JSON: ${text.slice(0, 100)}` } };
        }
        const label = `${res.status}${parsed?.error?.code ? ` ${parsed.error.code}` : ''}`;
        log.counts[label] = (log.counts[label] ?? 0) + 1;
        if (!allowed(res.status, parsed)) log.disallowed.push({ op, status: res.status, body: parsed });
        return { status: res.status, body: parsed };
      } catch {
        // The gateway was killed under the request (or is starting): a client retries.
        log.connectionLost += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return null;
  }

  async function lane(index: number) {
    const rng = seededRandom(opts.seed * 1000 + index);
    let n = 0;
    while (!stopping) {
      n += 1;
      log.operations += 1;
      const business = rng.pick(opts.businesses);
      const roll = rng.next();
      const tag = `soak-${opts.seed}-${index}-${n}`;
      if (roll < 0.45) {
        // A transfer; most carry an Idempotency-Key, and some of those are sent again (a retry).
        const body = { currency: 'NGN', amount: rng.int(1, 500_000) / 100, account_number: String(rng.int(1_000_000_000, 1_999_999_999)), bank_code: '058', account_name: 'Soak Payee', narration: tag };
        const key = rng.next() < 0.7 ? `${tag}-key` : undefined;
        const send = () => call('transfer', business, 'POST', '/v1/transfers', body, key ? { 'idempotency-key': key } : {});
        const repeats = key && rng.next() < 0.3 ? rng.int(1, 2) : 0;
        if (repeats && rng.next() < 0.5) await Promise.all(Array.from({ length: repeats + 1 }, send));
        else for (let i = 0; i <= repeats; i++) await send();
      } else if (roll < 0.75) {
        // A verification, checked with the right code or a wrong one.
        const destination = `soak${rng.int(1, 200)}@example.com`;
        const started = await call('verification', business, 'POST', '/v1/verifications', { channel: 'email', destination });
        const reference = started && started.status < 300 ? started.body?.data?.reference : undefined;
        if (reference) {
          verificationReferences.add(reference);
          const right = rng.next() < 0.7;
          let code: string | null = null;
          for (let i = 0; i < 20 && right && !code; i++) {
            code = await opts.readCode(destination, reference);
            if (!code) await new Promise((r) => setTimeout(r, 100));
          }
          await call('verification check', business, 'POST', `/v1/verifications/${reference}/check`, { code: code ?? String(rng.int(1000, 9999)) });
        }
      } else if (roll < 0.95) {
        await call('transactions', business, 'GET', `/v1/transactions?limit=${rng.int(1, 20)}`);
      } else {
        await call('balances', business, 'GET', '/v1/balances');
      }
      await new Promise((r) => setTimeout(r, rng.int(0, 20)));
    }
  }

  const lanes = Array.from({ length: opts.lanes }, (_, i) => lane(i));
  return {
    log,
    verificationReferences,
    async stop() {
      stopping = true;
      await Promise.all(lanes);
    },
  };
}

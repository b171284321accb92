// The soak's traffic: a seeded mix of what businesses do through the public
// API, on several lanes at once. Each lane's operations come from its own
// seeded generator, so a seed names the same mix every run.
import { paystackChargeSuccess } from '@cowrie/paystack/testing';
import { seededRandom } from '@cowrie/testing';
import type { ServiceReplica } from './world';

export interface Business {
  workspaceId: number;
  key: string;
  /** A dashboard session (JWT) for endpoint management. */
  session: string;
  beneficiaryIds: number[];
  /** Endpoints the driver creates, changes and deletes (they point at the churn receiver). */
  churnEndpoints: number[];
  /** Endpoints set up before traffic and never changed: every event must reach each. */
  stableEndpoints: number[];
  /** The dashboard user the session belongs to. */
  user: { email: string; password: string };
}

/** An inbound transfer the driver reported to the gateway as the collection rail would, and what must come of it. */
export interface InboundSent {
  reference: string;
  workspaceId: number;
  /** Kobo. */
  amountKobo: number;
  expect: 'credited' | 'not credited';
  /** The gateway answered 200 at least once (the rail stops retrying). */
  acknowledged: boolean;
}

/** The outcome of a test ping as the dashboard got it. */
export interface PingAnswer {
  endpointId: number;
  ok: boolean;
  deliveryId: number;
  stable: boolean;
}

/** Every answer the API gave, by status and code, and the answers the API does not allow. */
export interface AnswerLog {
  counts: Record<string, number>;
  disallowed: Array<{ op: string; status: number; body: unknown }>;
  /** Requests whose gateway died under them (a client retries those). */
  connectionLost: number;
  operations: number;
}

/** Statuses the API allows: any 2xx and 4xx; a 5xx only as provider_error (502, 503, 504). */
type Body = {
  error?: { code?: string; details?: { reason?: string } };
  data?: { reference?: string; id?: number; account?: { account_number?: string }; ok?: boolean; delivery_id?: number };
} | null;

function allowed(status: number, body: Body): boolean {
  if (status < 500) return true;
  return [502, 503, 504].includes(status) && body?.error?.code === 'provider_error';
}

export interface Driver {
  log: AnswerLog;
  /** Verification references started, for the checks. */
  verificationReferences: Set<string>;
  inbound: InboundSent[];
  pings: PingAnswer[];
  /** Operations by kind. */
  mix: Record<string, number>;
  stop(): Promise<void>;
}

const CHURN_EVENT_SETS = [
  ['*'],
  ['verification.verified', 'verification.failed'],
  ['collection.successful'],
  ['reserved_account.created', 'collection.successful'],
  ['verification.expired'],
];

export function startDriver(opts: {
  seed: number;
  lanes: number;
  businesses: Business[];
  gateways: () => ServiceReplica[];
  /** The code sent to an email destination for a reference (the sandbox's outbox). */
  readEmailCode: (destination: string, reference: string) => Promise<string | null>;
  /** The code sent to a phone (the SMS stand-in's log). */
  readSmsCode: (destination: string) => string | null;
  /** The collection rail's secret: notifications are signed with it. */
  collectionSecret: string;
  churnReceiverUrl: string;
}): Driver {
  const log: AnswerLog = { counts: {}, disallowed: [], connectionLost: 0, operations: 0 };
  const verificationReferences = new Set<string>();
  const inbound: InboundSent[] = [];
  const pings: PingAnswer[] = [];
  const mix: Record<string, number> = {};
  let stopping = false;

  const live = () => opts.gateways().filter((g) => g.child && g.child.exitCode === null && g.child.signalCode === null);
  /** One request to a random live gateway, retried on a lost connection as a client would; `token` defaults to the business's API key. */
  async function call(
    op: string,
    business: Business,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    token = business.key,
  ) {
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
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        let parsed: Body = null;
        try {
          parsed = text ? (JSON.parse(text) as Body) : null;
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

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Sends a request, then the same again `repeats` times (a client retrying), all at once or one after another. */
  async function withRetries(rng: ReturnType<typeof seededRandom>, send: () => Promise<unknown>, retried: boolean) {
    const repeats = retried && rng.next() < 0.3 ? rng.int(1, 2) : 0;
    if (repeats && rng.next() < 0.5) await Promise.all(Array.from({ length: repeats + 1 }, send));
    else for (let i = 0; i <= repeats; i++) await send();
  }

  async function transfer(rng: ReturnType<typeof seededRandom>, business: Business, tag: string) {
    // Most carry an Idempotency-Key, and some of those are sent again (a retry).
    const body = {
      currency: 'NGN',
      amount: rng.int(1, 500_000) / 100,
      account_number: String(rng.int(1_000_000_000, 1_999_999_999)),
      bank_code: '058',
      account_name: 'Soak Payee',
      narration: tag,
    };
    const key = rng.next() < 0.7 ? `${tag}-key` : undefined;
    await withRetries(rng, () => call('transfer', business, 'POST', '/v1/transfers', body, key ? { 'idempotency-key': key } : {}), Boolean(key));
  }

  async function withdrawal(rng: ReturnType<typeof seededRandom>, business: Business, tag: string) {
    // To a saved beneficiary; the key goes as the header or as the body's idempotency_key.
    const inBody = rng.next() < 0.3;
    const key = rng.next() < 0.7 ? `${tag}-key` : undefined;
    const body = {
      currency: 'NGN',
      amount: rng.int(100, 300_000) / 100,
      beneficiary_id: rng.pick(business.beneficiaryIds),
      narration: tag,
      ...(key && inBody ? { idempotency_key: key } : {}),
    };
    await withRetries(rng, () => call('withdrawal', business, 'POST', '/v1/withdrawals', body, key && !inBody ? { 'idempotency-key': key } : {}), Boolean(key));
  }

  async function verification(rng: ReturnType<typeof seededRandom>, business: Business, index: number, n: number) {
    // By SMS through the Termii stand-in (one phone per start) or by email through the sandbox; checked with the right code or a wrong one.
    const sms = rng.next() < 0.5;
    const destination = sms ? `+234807${String((index * 1_000_000 + n) % 10_000_000).padStart(7, '0')}` : `soak${rng.int(1, 200)}@example.com`;
    const started = await call('verification', business, 'POST', '/v1/verifications', { channel: sms ? 'sms' : 'email', destination });
    const reference = started && started.status < 300 ? started.body?.data?.reference : undefined;
    if (!reference) return;
    verificationReferences.add(reference);
    const right = rng.next() < 0.7;
    let code: string | null = null;
    for (let i = 0; i < 20 && right && !code; i++) {
      code = sms ? opts.readSmsCode(destination) : await opts.readEmailCode(destination, reference);
      if (!code) await sleep(100);
    }
    await call('verification check', business, 'POST', `/v1/verifications/${reference}/check`, { code: code ?? String(rng.int(1000, 9999)) });
  }

  /** Reports an inbound transfer as Paystack does (a signed charge.success), retrying until acknowledged, sometimes twice. */
  async function notify(rng: ReturnType<typeof seededRandom>, business: Business, sent: Omit<InboundSent, 'acknowledged'>, accountNumber: string) {
    const entry: InboundSent = { ...sent, acknowledged: false };
    inbound.push(entry);
    const { rawBody, signature } = paystackChargeSuccess(opts.collectionSecret, {
      reference: sent.reference,
      amountKobo: sent.amountKobo,
      accountNumber,
      channel: 'dedicated_nuban',
    });
    const deliver = async () => {
      for (let i = 0; i < 5 && !stopping; i++) {
        const res = await call('rail notification', business, 'POST', '/rails/paystack/notifications', rawBody, { 'x-paystack-signature': signature });
        if (res?.status === 200) return void (entry.acknowledged = true);
        await sleep(200);
      }
    };
    await withRetries(rng, deliver, true);
  }

  async function deposit(rng: ReturnType<typeof seededRandom>, business: Business, tag: string) {
    if (rng.next() < 0.6) {
      // A one-off account for an amount; most are paid, some with the wrong amount (held unmatched), a few never.
      const amountKobo = rng.int(100, 5_000_000);
      const reference = rng.next() < 0.2 ? `${tag.replace(/-\d+$/, '')}-dup` : tag;
      const opened = await call('deposit', business, 'POST', '/v1/deposits', { channel: 'collection_va', amount: amountKobo / 100, reference });
      const accountNumber = opened?.status === 201 || opened?.status === 200 ? opened.body?.data?.account?.account_number : undefined;
      if (!accountNumber || reference !== tag || rng.next() < 0.15) return;
      const wrong = rng.next() < 0.1;
      await notify(
        rng,
        business,
        {
          reference: `pay-${tag}`,
          workspaceId: business.workspaceId,
          amountKobo: wrong ? amountKobo + 100 : amountKobo,
          expect: wrong ? 'not credited' : 'credited',
        },
        accountNumber,
      );
    } else {
      // The business's reserved account: any amount credits it.
      const opened = await call('deposit', business, 'POST', '/v1/deposits', { channel: 'reserved_va' });
      const accountNumber = opened?.status === 201 || opened?.status === 200 ? opened.body?.data?.account?.account_number : undefined;
      if (!accountNumber) return;
      await notify(
        rng,
        business,
        { reference: `pay-${tag}`, workspaceId: business.workspaceId, amountKobo: rng.int(100, 2_000_000), expect: 'credited' },
        accountNumber,
      );
    }
  }

  async function endpointChange(rng: ReturnType<typeof seededRandom>, business: Business) {
    // The dashboard: create, change, delete the churn endpoints, or ping any endpoint.
    const roll = rng.next();
    const session = business.session;
    if ((roll < 0.3 && business.churnEndpoints.length < 6) || business.churnEndpoints.length === 0) {
      const endpoint = { url: `${opts.churnReceiverUrl}/hook`, events: rng.pick(CHURN_EVENT_SETS) };
      const create = () => call('endpoint create', business, 'POST', '/webhook-endpoints', endpoint, {}, session);
      let res = await create();
      // A new endpoint is a guarded change: past STEP_UP_SECONDS since the sign-in, the user steps up with the password, as the dashboard asks.
      if (res?.status === 403 && res.body?.error?.details?.reason === 'step_up_required') {
        await call('step-up', business, 'POST', '/auth/step-up', { password: business.user.password }, {}, session);
        res = await create();
      }
      if (res?.status === 201 && res.body?.data?.id) business.churnEndpoints.push(res.body.data.id);
    } else if (roll < 0.55) {
      const id = rng.pick(business.churnEndpoints);
      await call('endpoint update', business, 'PUT', `/webhook-endpoints/${id}`, { events: rng.pick(CHURN_EVENT_SETS), active: rng.next() < 0.8 }, {}, session);
    } else if (roll < 0.7) {
      const id = business.churnEndpoints.splice(rng.int(0, business.churnEndpoints.length - 1), 1)[0]!;
      await call('endpoint delete', business, 'DELETE', `/webhook-endpoints/${id}`, undefined, {}, session);
    } else {
      const stable = rng.next() < 0.5;
      const id = rng.pick(stable ? business.stableEndpoints : business.churnEndpoints);
      const res = await call('endpoint test', business, 'POST', `/webhook-endpoints/${id}/test`, undefined, {}, session);
      if (res?.status === 200 && res.body?.data)
        pings.push({ endpointId: id, ok: res.body.data.ok === true, deliveryId: Number(res.body.data.delivery_id), stable });
    }
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
      const kind =
        roll < 0.3
          ? 'transfer'
          : roll < 0.4
            ? 'withdrawal'
            : roll < 0.6
              ? 'verification'
              : roll < 0.75
                ? 'deposit'
                : roll < 0.78
                  ? 'endpoint change'
                  : roll < 0.95
                    ? 'transactions'
                    : 'balances';
      mix[kind] = (mix[kind] ?? 0) + 1;
      if (kind === 'transfer') await transfer(rng, business, tag);
      else if (kind === 'withdrawal') await withdrawal(rng, business, tag);
      else if (kind === 'verification') await verification(rng, business, index, n);
      else if (kind === 'deposit') await deposit(rng, business, tag);
      else if (kind === 'endpoint change') await endpointChange(rng, business);
      else if (kind === 'transactions') await call('transactions', business, 'GET', `/v1/transactions?limit=${rng.int(1, 20)}`);
      else await call('balances', business, 'GET', '/v1/balances');
      await sleep(rng.int(0, 20));
    }
  }

  const lanes = Array.from({ length: opts.lanes }, (_, i) => lane(i));
  return {
    log,
    verificationReferences,
    inbound,
    pings,
    mix,
    async stop() {
      stopping = true;
      await Promise.all(lanes);
    },
  };
}

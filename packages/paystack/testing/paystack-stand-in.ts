import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in of Paystack's documented API (https://paystack.com/docs/api),
 * real HTTP on 127.0.0.1 (port 0), with Bearer-secret auth and Paystack's
 * `{status, message, data}` bodies. What both rails use:
 *
 * - transfers (payout rail): GET /bank, GET /bank/resolve, POST
 *   /transferrecipient, POST /transfer, GET /transfer/verify/:reference;
 * - virtual accounts (collection rail): POST /customer, POST
 *   /dedicated_account, and Pay with Transfer (POST /charge with
 *   `bank_transfer`); `paystackChargeSuccess` writes the signed
 *   `charge.success` notification Paystack sends when one is paid.
 *
 * Every answer (after the key check): `options.mode` `error_500` answers 500,
 * `refuse` answers 400 ("Dedicated NUBAN not available"), `slow` never
 * answers; `options.delayMs` answers that much later; `holdAnswers()` holds
 * every answer until released. `options.recycledAccountNumber` gives every
 * account opened from then on that number (a provider reusing numbers).
 *
 * POST /transfer: destination accounts select behaviours:
 *
 * | account    | POST /transfer                                           |
 * |------------|----------------------------------------------------------|
 * | 0000000005 | hangs past any client timeout and records nothing         |
 * | 0000000006 | answers status `failed`                                   |
 * | 0000000007 | answers status `pending` (settle later with `complete`)   |
 * | 0000000008 | records a success but answers only after `hangMs`         |
 * | 0000000009 | answers 500 and records nothing                           |
 * | other      | answers status `success`                                  |
 *
 * `resolve` of 9999999999 answers 422. `verifyDown` makes verify answer 503.
 * `acceptThenFail` records every transfer (a success) and answers 500 all the
 * same; `hideFromVerify` makes verify answer "not found" for every reference
 * (a transfer Paystack has not surfaced yet). `behaviour(transfer)`, when set,
 * decides per transfer instead of the account (see StandInSend), and
 * `visibleAfterMs` hides a recorded transfer from verify for that long.
 * `rateLimited` answers 429 to the calls that move money while reads answer.
 * `reverse(reference)` (or `reverseAfterMs`) has the bank return a paid
 * transfer, and `paystackTransferEvent` writes the signed `transfer.*`
 * notification Paystack sends about it.
 */

/**
 * What the stand-in does with one transfer: record it or not, then answer it,
 * fail with a 5xx, or hang past the client's timeout.
 */
export interface StandInSend {
  record: boolean;
  /** `refuse`: Paystack's own balance is too low (400, nothing recorded; with `record: false`). */
  answer: 'ok' | '5xx' | 'hang' | 'refuse';
  /** A recorded transfer stays invisible to verify this long. */
  visibleAfterMs?: number;
  /** The transfer is `pending` at first and reaches this final status after `afterMs` (Paystack settling later). */
  settle?: { afterMs: number; status: 'success' | 'failed' | 'reversed' };
  /** A transfer that succeeded is returned by the bank this long after it was recorded: verify then answers `reversed`. */
  reverseAfterMs?: number;
}
export interface PaystackStandIn {
  url: string;
  secret: string;
  /** Every request, with its body parsed and as the exact text that arrived (amounts are checked digit by digit). */
  requests: Array<{ method: string; path: string; query: Record<string, string>; body: any; raw: string; authorization?: string }>;
  transfers: Map<string, Record<string, any>>;
  options: {
    /** How every request is answered: as the API would (`ok`), 500, a 400 refusal, or never (`slow`). */
    mode: 'ok' | 'error_500' | 'refuse' | 'slow';
    /** Every answer comes this much later (0: at once). */
    delayMs: number;
    /** Every account opened from now on gets this number (null: a new number each). */
    recycledAccountNumber: string | null;
    verifyDown: boolean;
    hangMs: number;
    acceptThenFail: boolean;
    hideFromVerify: boolean;
    /** POST /transfer answers 400 "Your balance is not enough…" and records nothing (Paystack's own balance too low). */
    balanceTooLow?: boolean;
    /** POST /transferrecipient and POST /transfer answer 429 and accept nothing (Paystack rate limiting); reads still answer. */
    rateLimited?: boolean;
    behaviour?: (transfer: { reference: string; reason: string }) => StandInSend | undefined;
    /** Where a `transfer.reversed` notification is POSTed (signed with the secret) when `reverseAfterMs` reverses a transfer; none when unset. */
    notifyUrl?: string;
    /** Whether to send that notification for this reference (false: it is lost, as a provider's can be). */
    notifies?: (reference: string) => boolean;
  };
  /** Every request is recorded at once but answered only when the returned function is called. */
  holdAnswers(): () => void;
  complete(reference: string): void;
  /** The bank returns a transfer Paystack had paid: verify answers `reversed` from now on. */
  reverse(reference: string): void;
  count(method: string, path: string): number;
  close(): Promise<void>;
}

const BANKS = [
  {
    id: 1,
    name: 'Access Bank',
    slug: 'access-bank',
    code: '044',
    longcode: '044150149',
    gateway: 'emandate',
    active: true,
    country: 'Nigeria',
    currency: 'NGN',
    type: 'nuban',
  },
  {
    id: 9,
    name: 'Guaranty Trust Bank',
    slug: 'guaranty-trust-bank',
    code: '058',
    longcode: '058152036',
    gateway: 'ibank',
    active: true,
    country: 'Nigeria',
    currency: 'NGN',
    type: 'nuban',
  },
  {
    id: 21,
    name: 'Zenith Bank',
    slug: 'zenith-bank',
    code: '057',
    longcode: '057150013',
    gateway: 'emandate',
    active: true,
    country: 'Nigeria',
    currency: 'NGN',
    type: 'nuban',
  },
  {
    id: 99,
    name: 'Closed Bank',
    slug: 'closed-bank',
    code: '999',
    longcode: '',
    gateway: null,
    active: false,
    country: 'Nigeria',
    currency: 'NGN',
    type: 'nuban',
  },
];

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startPaystackStandIn({ secret = 'sk_test_standin' }: { secret?: string } = {}): Promise<PaystackStandIn> {
  const requests: PaystackStandIn['requests'] = [];
  const transfers = new Map<string, Record<string, any>>();
  const recipients = new Map<string, Record<string, any>>();
  const options: PaystackStandIn['options'] = {
    mode: 'ok',
    delayMs: 0,
    recycledAccountNumber: null,
    verifyDown: false,
    hangMs: 1500,
    acceptThenFail: false,
    hideFromVerify: false,
  };
  // While set, every answer waits for it (a provider slow for as long as a test needs).
  let held: Promise<void> | null = null;
  const customers = new Map<string, { email: string; first_name: string; last_name: string; id: number }>();
  let accountSeq = 0;
  let customerSeq = 0;
  const nextAccountNumber = (prefix: string) =>
    options.recycledAccountNumber ?? `${prefix}${String(++accountSeq).padStart(9 - prefix.length + 1, '0')}`.slice(0, 10);
  const visibleAt = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  let seq = 0;

  const server: Server = createServer((req, res) => {
    // An answer that throws ends its connection (the client sees a reset), never the process.
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = await readText(req).catch(() => '');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        raw,
        authorization: req.headers.authorization,
      });
      if (req.headers.authorization !== `Bearer ${secret}`) return send(res, 401, { status: false, message: 'Invalid key' });
      if (options.mode === 'slow') return; // never answers: the client's timeout must fire
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (held) await held;
      if (options.mode === 'error_500') return send(res, 500, { status: false, message: 'An error occurred' });
      if (options.mode === 'refuse') return send(res, 400, { status: false, message: 'Dedicated NUBAN not available for this integration' });

      if (req.method === 'GET' && url.pathname === '/bank') {
        // Two pages, cursor style (use_cursor=true, perPage=2).
        const page = url.searchParams.get('next') === 'cursor-2' ? BANKS.slice(2) : BANKS.slice(0, 2);
        const next = url.searchParams.get('next') === 'cursor-2' ? null : 'cursor-2';
        return send(res, 200, { status: true, message: 'Banks retrieved', data: page, meta: { next, previous: null, perPage: 2 } });
      }
      if (req.method === 'GET' && url.pathname === '/bank/resolve') {
        const account = url.searchParams.get('account_number') ?? '';
        if (account === '9999999999' || !/^\d{10}$/.test(account))
          return send(res, 422, { status: false, message: 'Could not resolve account name. Check parameters or try again.' });
        return send(res, 200, {
          status: true,
          message: 'Account number resolved',
          data: { account_number: account, account_name: `PAYSTACK NAME ${account.slice(-4)}`, bank_id: 9 },
        });
      }
      if (req.method === 'POST' && url.pathname === '/transferrecipient') {
        if (!body?.name || !body?.account_number || !body?.bank_code || body?.type !== 'nuban')
          return send(res, 400, { status: false, message: 'Invalid recipient' });
        const bank = BANKS.find((b) => b.code === body.bank_code);
        if (!bank) return send(res, 400, { status: false, message: 'Unknown bank code' });
        const recipient = {
          active: true,
          currency: body.currency,
          id: ++seq,
          name: body.name,
          recipient_code: `RCP_${body.account_number}`,
          type: 'nuban',
          is_deleted: false,
          details: { authorization_code: null, account_number: body.account_number, account_name: body.name, bank_code: bank.code, bank_name: bank.name },
        };
        recipients.set(recipient.recipient_code, recipient);
        return send(res, 201, { status: true, message: 'Transfer recipient created successfully', data: recipient });
      }
      if (options.rateLimited && req.method === 'POST' && (url.pathname === '/transfer' || url.pathname === '/transferrecipient'))
        return send(res, 429, { status: false, message: 'Too many requests' });
      if (req.method === 'POST' && url.pathname === '/transfer') {
        const recipient = recipients.get(body?.recipient);
        if (!recipient) return send(res, 400, { status: false, message: 'Invalid recipient' });
        if (!Number.isInteger(body.amount) || body.amount <= 0) return send(res, 400, { status: false, message: 'Invalid amount' });
        if (!/^[a-z0-9_-]{16,50}$/.test(body.reference ?? '')) return send(res, 400, { status: false, message: 'Invalid reference' });
        if (transfers.has(body.reference)) return send(res, 400, { status: false, message: 'Duplicate Transfer Reference' });
        if (options.balanceTooLow) return send(res, 400, { status: false, message: 'Your balance is not enough to fulfil this request' });
        const account = recipient.details.account_number as string;
        const planned = options.behaviour?.({ reference: body.reference, reason: String(body.reason ?? '') });
        if (planned && !planned.record) {
          if (planned.answer === 'refuse') return send(res, 400, { status: false, message: 'Your balance is not enough to fulfil this request' });
          return planned.answer === 'hang' ? later(options.hangMs, () => res.destroy()) : send(res, 500, { status: false, message: 'Internal server error' });
        }
        if (account === '0000000009' && !planned) return send(res, 500, { status: false, message: 'Internal server error' });
        if (account === '0000000005') return later(options.hangMs, () => res.destroy());
        const status = planned?.settle || account === '0000000007' ? 'pending' : account === '0000000006' ? 'failed' : 'success';
        const transfer = {
          amount: body.amount,
          currency: body.currency,
          source: body.source,
          reason: body.reason,
          reference: body.reference,
          status,
          transfer_code: `TRF_${++seq}`,
          id: seq,
          recipient,
          failures: null,
          transferred_at: status === 'success' ? new Date().toISOString() : null,
        };
        transfers.set(body.reference, transfer);
        if (planned?.visibleAfterMs) visibleAt.set(body.reference, Date.now() + planned.visibleAfterMs);
        const settle = planned?.settle;
        if (settle)
          later(settle.afterMs, () =>
            Object.assign(transfer, { status: settle.status, transferred_at: settle.status === 'success' ? new Date().toISOString() : null }),
          );
        const reverseAfterMs = planned?.reverseAfterMs;
        if (reverseAfterMs !== undefined)
          later(reverseAfterMs, () => {
            if (transfer.status !== 'success') return;
            transfer.status = 'reversed';
            if (options.notifyUrl && (options.notifies?.(transfer.reference) ?? true)) {
              const { rawBody, signature } = paystackTransferEvent(secret, 'transfer.reversed', transfer);
              // Best effort, like the provider's first try: a lost one is found by asking (the reversal watch).
              void fetch(options.notifyUrl, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
                body: rawBody,
              }).catch(() => undefined);
            }
          });
        const { recipient: _r, ...answer } = transfer;
        if (planned?.answer === '5xx' || options.acceptThenFail) return send(res, 500, { status: false, message: 'Internal server error' });
        if (planned?.answer === 'hang') return later(options.hangMs, () => res.destroy());
        if (account === '0000000008')
          return later(options.hangMs, () => (res.destroyed ? undefined : send(res, 200, { status: true, message: 'Transfer has been queued', data: answer })));
        return send(res, 200, { status: true, message: 'Transfer has been queued', data: { ...answer, recipient: recipient.id } });
      }
      const verify = /^\/transfer\/verify\/(.+)$/.exec(url.pathname);
      if (req.method === 'GET' && verify) {
        if (options.verifyDown) return send(res, 503, { status: false, message: 'Service unavailable' });
        const reference = decodeURIComponent(verify[1]!);
        const transfer = transfers.get(reference);
        const hidden = options.hideFromVerify || (visibleAt.get(reference) ?? 0) > Date.now();
        if (!transfer || hidden) return send(res, 404, { status: false, message: 'Transfer not found' });
        return send(res, 200, { status: true, message: 'Transfer retrieved', data: transfer });
      }
      if (req.method === 'POST' && url.pathname === '/customer') {
        if (!body?.email) return send(res, 400, { status: false, message: 'Invalid Email Address Passed' });
        const id = ++customerSeq;
        const code = `CUS_standin${id}`;
        customers.set(code, { email: body.email, first_name: body.first_name, last_name: body.last_name, id });
        return send(res, 200, {
          status: true,
          message: 'Customer created',
          data: { email: body.email, integration: 100032, domain: 'test', customer_code: code, id, identified: false, identifications: null },
        });
      }
      if (req.method === 'POST' && url.pathname === '/dedicated_account') {
        const customer = customers.get(body?.customer);
        if (!customer) return send(res, 400, { status: false, message: 'Customer not found' });
        const bank = body.preferred_bank === 'wema-bank' ? { name: 'Wema Bank', id: 20, slug: 'wema-bank' } : { name: 'Test Bank', id: 24, slug: 'test-bank' };
        return send(res, 200, {
          status: true,
          message: 'NUBAN successfully created',
          data: {
            bank,
            account_name: `KAROKART / ${customer.first_name} ${customer.last_name}`.toUpperCase(),
            account_number: nextAccountNumber('99'),
            assigned: true,
            currency: 'NGN',
            metadata: null,
            active: true,
            id: 200 + customer.id,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            assignment: {
              integration: 100043,
              assignee_id: customer.id,
              assignee_type: 'Customer',
              expired: false,
              account_type: 'PAY-WITH-TRANSFER-RECURRING',
            },
            customer: { id: customer.id, first_name: customer.first_name, last_name: customer.last_name, email: customer.email, customer_code: body.customer },
          },
        });
      }
      if (req.method === 'POST' && url.pathname === '/charge') {
        if (!body?.email || !/^\d+$/.test(String(body.amount ?? '')) || !body.bank_transfer) {
          return send(res, 400, { status: false, message: 'Invalid charge request' });
        }
        return send(res, 200, {
          status: true,
          message: 'Charge attempted',
          data: {
            status: 'pending_bank_transfer',
            display_text: 'Please make a transfer to the account specified',
            reference: body.reference ?? `standin_${accountSeq + 1}`,
            amount: Number(body.amount),
            account_name: 'PAYSTACK CHECKOUT',
            account_number: nextAccountNumber('12'),
            bank: { slug: 'test-bank', name: 'Test Bank', id: 24 },
            account_expires_at: body.bank_transfer.account_expires_at,
          },
        });
      }
      send(res, 404, { status: false, message: 'Not found' });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    requests,
    transfers,
    options,
    holdAnswers() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    complete(reference) {
      const t = transfers.get(reference);
      if (t) t.status = 'success';
    },
    reverse(reference) {
      const t = transfers.get(reference);
      if (t) t.status = 'reversed';
    },
    count(method, path) {
      return requests.filter((r) => r.method === method && r.path === path).length;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A `charge.success` notification for a bank transfer, as Paystack sends it, with its signature header (hex HMAC-SHA512 of the raw body, keyed with the secret key). */
export function paystackChargeSuccess(
  secretKey: string,
  opts: {
    reference: string;
    amountKobo: number;
    accountNumber: string;
    currency?: string;
    channel?: 'dedicated_nuban' | 'bank_transfer';
    /** Paystack's `data.domain`: `live` (default) or `test` (a test key's charge); undefined leaves it out. */
    domain?: string;
    /** Paystack's `data.paid_at`, when the payer paid: now (default), another ISO 8601 time, or null to leave it out. */
    paidAt?: string | null;
  },
) {
  const domain = 'domain' in opts ? opts.domain : 'live';
  const paidAt = opts.paidAt === undefined ? new Date().toISOString() : opts.paidAt;
  const payload = {
    event: 'charge.success',
    data: {
      id: 302961,
      ...(domain === undefined ? {} : { domain }),
      status: 'success',
      reference: opts.reference,
      amount: opts.amountKobo,
      message: null,
      gateway_response: 'Approved',
      ...(paidAt === null ? {} : { paid_at: paidAt }),
      channel: opts.channel ?? 'dedicated_nuban',
      currency: opts.currency ?? 'NGN',
      customer: { id: 7454289, first_name: 'Rhoda', last_name: 'Church', email: 'rhoda@example.com', customer_code: 'CUS_kpb3qj71u1m0rw8' },
      authorization: {
        authorization_code: 'AUTH_0ozsafcpdf',
        channel: opts.channel ?? 'dedicated_nuban',
        card_type: 'transfer',
        bank: 'First City Monument Bank',
        country_code: 'NG',
        brand: 'Managed Account',
        reusable: false,
        sender_bank: 'First City Monument Bank',
        sender_bank_account_number: 'XXXXXX0011',
        sender_country: 'NG',
        sender_name: 'RANDALL AKANBI HORTON',
        narration: 'NIP: RHODA CHURCH -1123344343/44343231232',
        receiver_bank_account_number: opts.accountNumber,
        receiver_bank: 'Wema Bank',
      },
    },
  };
  const rawBody = JSON.stringify(payload);
  return { rawBody, signature: createHmac('sha512', secretKey).update(rawBody).digest('hex'), payload };
}

/** A `transfer.*` notification (`transfer.success`, `transfer.failed`, `transfer.reversed`) as Paystack sends it, with its signature header. */
export function paystackTransferEvent(secretKey: string, event: string, transfer: Record<string, any>) {
  const { recipient, ...data } = transfer;
  const payload = { event, data: { ...data, domain: 'test', recipient: recipient ?? null, session: { provider: null, id: null } } };
  const rawBody = JSON.stringify(payload);
  return { rawBody, signature: createHmac('sha512', secretKey).update(rawBody).digest('hex'), payload };
}

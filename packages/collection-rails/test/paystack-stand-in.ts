import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hmacSha512Hex } from '../src/signatures';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

/**
 * A local stand-in of Paystack's documented API for virtual accounts: Create
 * Customer, Create Dedicated Virtual Account, and Pay with Transfer (`/charge`
 * with `bank_transfer`), answering in Paystack's `{status, message, data}`
 * envelope. Real HTTP on 127.0.0.1, port 0.
 */
export async function startPaystackStandIn(secretKey: string) {
  const requests: RecordedRequest[] = [];
  let mode: 'ok' | 'error_500' | 'refuse' | 'slow' = 'ok';
  let accountSeq = 0;
  let customerSeq = 0;
  // Latency of every answer (a slow provider that still answers), and a number every new account gets (a provider recycling numbers).
  let delayMs = 0;
  let recycledNumber: string | null = null;
  // While set, every answer waits for it (a provider slow for as long as a test needs).
  let held: Promise<void> | null = null;
  const customers = new Map<string, { email: string; first_name: string; last_name: string; id: number }>();
  const nextAccountNumber = (prefix: string) => recycledNumber ?? `${prefix}${String(++accountSeq).padStart(9 - prefix.length + 1, '0')}`.slice(0, 10);

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => resolve(data));
    });

  const server: Server = createServer((req, res) => {
    // An answer that throws ends its connection (the client sees a reset), never the process.
    void (async () => {
      const raw = await read(req);
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${secretKey}`) return send(401, { status: false, message: 'Invalid key' });
      if (mode === 'slow') return; // never answers: the client's timeout must fire
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (held) await held;
      if (mode === 'error_500') return send(500, { status: false, message: 'An error occurred' });
      if (mode === 'refuse') return send(400, { status: false, message: 'Dedicated NUBAN not available for this integration' });

      if (req.method === 'POST' && path === '/customer') {
        if (!body?.email) return send(400, { status: false, message: 'Invalid Email Address Passed' });
        const id = ++customerSeq;
        const code = `CUS_standin${id}`;
        customers.set(code, { email: body.email, first_name: body.first_name, last_name: body.last_name, id });
        return send(200, {
          status: true,
          message: 'Customer created',
          data: { email: body.email, integration: 100032, domain: 'test', customer_code: code, id, identified: false, identifications: null },
        });
      }
      if (req.method === 'POST' && path === '/dedicated_account') {
        const customer = customers.get(body?.customer);
        if (!customer) return send(400, { status: false, message: 'Customer not found' });
        const bank = body.preferred_bank === 'wema-bank' ? { name: 'Wema Bank', id: 20, slug: 'wema-bank' } : { name: 'Test Bank', id: 24, slug: 'test-bank' };
        return send(200, {
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
      if (req.method === 'POST' && path === '/charge') {
        if (!body?.email || !/^\d+$/.test(String(body.amount ?? '')) || !body.bank_transfer) {
          return send(400, { status: false, message: 'Invalid charge request' });
        }
        return send(200, {
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
      send(404, { status: false, message: 'Not found' });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode(next: typeof mode) {
      mode = next;
    },
    /** Every answer comes this much later (0: at once). */
    setDelay(ms: number) {
      delayMs = ms;
    },
    /** Every request is recorded at once but answered only when the returned function is called. */
    holdAnswers() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    /** Every account opened from now on gets this number (null: a new number each), as a provider that reuses numbers. */
    setRecycledAccountNumber(number: string | null) {
      recycledNumber = number;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A `charge.success` notification for a bank transfer, as Paystack sends it, with its signature header. */
export function paystackChargeSuccess(
  secretKey: string,
  opts: { reference: string; amountKobo: number; accountNumber: string; currency?: string; channel?: 'dedicated_nuban' | 'bank_transfer' },
) {
  const payload = {
    event: 'charge.success',
    data: {
      id: 302961,
      domain: 'live',
      status: 'success',
      reference: opts.reference,
      amount: opts.amountKobo,
      message: null,
      gateway_response: 'Approved',
      paid_at: new Date().toISOString(),
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
  return { rawBody, signature: hmacSha512Hex(secretKey, rawBody), payload };
}

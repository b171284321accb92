import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in of Flutterwave's documented v3 transfer API
 * (https://developer.flutterwave.com/reference), real HTTP on 127.0.0.1, with
 * Bearer-secret auth and `{status: "success" | "error", message, data}`
 * bodies: GET /v3/banks/NG, POST /v3/accounts/resolve, POST /v3/transfers
 * (amounts in major units, our `reference`), GET /v3/transfers/:id and
 * GET /v3/transfers?reference=… (the transfer Flutterwave holds under a
 * reference). Transfers are `NEW`, then `SUCCESSFUL` or `FAILED` (with a
 * `complete_message`); a paid transfer the bank returns is `REVERSED`.
 *
 * Failure modes, per destination account (or per transfer with `behaviour`):
 *
 * | account    | POST /v3/transfers                                        |
 * |------------|-----------------------------------------------------------|
 * | 0000000005 | hangs past any client timeout and records nothing          |
 * | 0000000006 | FAILED, the destination's fault ("Account resolve failed")  |
 * | 0000000007 | NEW until `complete(reference)` (a transfer settling later) |
 * | 0000000008 | records a success but answers only after `hangMs`          |
 * | 0000000009 | answers 500 and records nothing                            |
 * | other      | SUCCESSFUL at once (`instant`), or NEW then SUCCESSFUL      |
 *
 * `goDown()` closes the port (connections refused: nothing can be accepted)
 * until `comeUp()`; `options.balance` refuses a transfer above it with
 * Flutterwave's "insufficient funds" (the rail's own failure); a wrong key is
 * 401. `reverse(reference)` has the bank return a paid transfer, and
 * `flutterwaveTransferEvent` writes the webhook Flutterwave sends about it.
 */
export interface FlutterwaveSend {
  record: boolean;
  /** `refuse`: Flutterwave's own balance is too low (400 "Insufficient funds", nothing recorded; with `record: false`). */
  answer: 'ok' | '5xx' | 'hang' | 'refuse';
  /** A recorded transfer stays invisible to a fetch this long. */
  visibleAfterMs?: number;
  /** NEW at first, this status after `afterMs` (with `message` as its `complete_message`, when given). */
  settle?: { afterMs: number; status: 'SUCCESSFUL' | 'FAILED' | 'REVERSED'; message?: string };
  /** A SUCCESSFUL transfer is returned by the bank this long after it was recorded. */
  reverseAfterMs?: number;
}

export interface FlutterwaveStandIn {
  url: string;
  secret: string;
  /** The secret hash the webhooks carry in `verif-hash`. */
  hash: string;
  requests: Array<{ method: string; path: string; query: Record<string, string>; body: any; raw: string; authorization?: string }>;
  transfers: Map<string, Record<string, any>>;
  options: {
    /** Transfers answer SUCCESSFUL at once (true) or NEW, settling after `settleMs`. */
    instant: boolean;
    settleMs: number;
    hangMs: number;
    /** The merchant balance: a transfer above it is refused ("insufficient funds"); null: unlimited. */
    balance: number | null;
    /** Fetches answer 503. */
    fetchDown: boolean;
    /** The transfer list ignores `reference` and answers its first page of every transfer (a provider that does not filter). */
    listIgnoresReference?: boolean;
    behaviour?: (transfer: { reference: string; narration: string }) => FlutterwaveSend | undefined;
    /** Where transfer webhooks are POSTed (with `verif-hash`) when a transfer settles later or is reversed. */
    notifyUrl?: string;
    notifies?: (reference: string) => boolean;
  };
  complete(reference: string, status?: 'SUCCESSFUL' | 'FAILED'): void;
  reverse(reference: string): void;
  count(method: string, path: string): number;
  /** Closes the listening port: every call is refused until comeUp(). */
  goDown(): Promise<void>;
  comeUp(): Promise<void>;
  close(): Promise<void>;
}

const BANKS = [
  { id: 132, code: '044', name: 'Access Bank' },
  { id: 139, code: '058', name: 'GTBank Plc' },
  { id: 140, code: '057', name: 'Zenith Bank' },
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

/** The webhook Flutterwave sends about a transfer, and the header that authenticates it. */
export function flutterwaveTransferEvent(hash: string, transfer: Record<string, any>) {
  const body = {
    event: 'transfer.completed',
    'event.type': 'Transfer',
    data: {
      id: transfer.id,
      account_number: transfer.account_number,
      bank_name: transfer.bank_name,
      bank_code: transfer.bank_code,
      fullname: transfer.full_name,
      created_at: transfer.created_at,
      currency: transfer.currency,
      debit_currency: transfer.debit_currency,
      amount: transfer.amount,
      fee: transfer.fee,
      status: transfer.status,
      reference: transfer.reference,
      meta: null,
      narration: transfer.narration,
      approver: null,
      complete_message: transfer.complete_message,
      requires_approval: 0,
      is_approved: 1,
    },
  };
  return { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json', 'verif-hash': hash } };
}

export async function startFlutterwaveStandIn({
  secret = 'FLWSECK_TEST-standin',
  hash = 'flw-standin-hash',
}: { secret?: string; hash?: string } = {}): Promise<FlutterwaveStandIn> {
  const requests: FlutterwaveStandIn['requests'] = [];
  const transfers = new Map<string, Record<string, any>>();
  const options: FlutterwaveStandIn['options'] = { instant: true, settleMs: 200, hangMs: 1500, balance: null, fetchDown: false };
  const visibleAt = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let seq = 1000;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const notify = (transfer: Record<string, any>) => {
    if (!options.notifyUrl || !(options.notifies?.(transfer.reference) ?? true)) return;
    const { rawBody, headers } = flutterwaveTransferEvent(hash, transfer);
    // Best effort, like the provider's first try.
    void fetch(options.notifyUrl, { method: 'POST', headers, body: rawBody }).catch(() => undefined);
  };
  const settle = (transfer: Record<string, any>, status: 'SUCCESSFUL' | 'FAILED' | 'REVERSED', message?: string) => {
    transfer.status = status;
    transfer.complete_message =
      message ??
      (status === 'SUCCESSFUL'
        ? 'Transaction was successful'
        : status === 'FAILED'
          ? 'DISBURSE FAILED: Account resolve failed'
          : 'Transfer reversed by the bank');
    notify(transfer);
  };

  const server: Server = createServer((req, res) => {
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
      if (req.headers.authorization !== `Bearer ${secret}`) return send(res, 401, { status: 'error', message: 'Invalid authorization key', data: null });

      if (req.method === 'GET' && url.pathname === '/v3/banks/NG')
        return send(res, 200, { status: 'success', message: 'Banks fetched successfully', data: BANKS });
      if (req.method === 'POST' && url.pathname === '/v3/accounts/resolve') {
        const account = String(body?.account_number ?? '');
        if (account === '9999999999' || !/^\d{10}$/.test(account) || !BANKS.some((b) => b.code === body?.account_bank))
          return send(res, 400, { status: 'error', message: 'Sorry, that account number is invalid, please check and try again', data: null });
        return send(res, 200, {
          status: 'success',
          message: 'Account details fetched',
          data: { account_number: account, account_name: `FLW NAME ${account.slice(-4)}` },
        });
      }
      if (req.method === 'POST' && url.pathname === '/v3/transfers') {
        if (typeof body?.amount !== 'number' || !(body.amount > 0)) return send(res, 400, { status: 'error', message: 'Invalid amount', data: null });
        if (typeof body.reference !== 'string' || !body.reference) return send(res, 400, { status: 'error', message: 'Invalid reference', data: null });
        const bank = BANKS.find((b) => b.code === body.account_bank);
        if (!bank) return send(res, 400, { status: 'error', message: 'Invalid account_bank', data: null });
        if (transfers.has(body.reference))
          return send(res, 400, { status: 'error', message: 'Duplicate reference: a transfer with this reference already exists', data: null });
        if (options.balance !== null && body.amount > options.balance)
          return send(res, 400, { status: 'error', message: 'Insufficient funds in customer wallet', data: null });
        const account = String(body.account_number);
        const planned = options.behaviour?.({ reference: body.reference, narration: String(body.narration ?? '') });
        if (planned && !planned.record) {
          if (planned.answer === 'refuse') return send(res, 400, { status: 'error', message: 'Insufficient funds in customer wallet', data: null });
          return planned.answer === 'hang'
            ? later(options.hangMs, () => res.destroy())
            : send(res, 500, { status: 'error', message: 'Internal server error', data: null });
        }
        if (account === '0000000009' && !planned) return send(res, 500, { status: 'error', message: 'Internal server error', data: null });
        if (account === '0000000005' && !planned) return later(options.hangMs, () => res.destroy());
        const transfer: Record<string, any> = {
          id: ++seq,
          account_number: account,
          bank_code: bank.code,
          full_name: body.beneficiary_name ?? `FLW NAME ${account.slice(-4)}`,
          created_at: new Date().toISOString(),
          currency: body.currency,
          debit_currency: body.debit_currency ?? body.currency,
          amount: body.amount,
          fee: 10.75,
          status: 'NEW',
          reference: body.reference,
          meta: null,
          narration: body.narration,
          complete_message: '',
          requires_approval: 0,
          is_approved: 1,
          bank_name: bank.name,
        };
        transfers.set(body.reference, transfer);
        if (options.balance !== null) options.balance -= body.amount;
        if (planned?.visibleAfterMs) visibleAt.set(body.reference, Date.now() + planned.visibleAfterMs);
        const plannedSettle = planned?.settle;
        if (plannedSettle) later(plannedSettle.afterMs, () => settle(transfer, plannedSettle.status, plannedSettle.message));
        else if (account === '0000000006') transfer.status = 'FAILED';
        else if (account !== '0000000007') {
          if (options.instant) transfer.status = 'SUCCESSFUL';
          else later(options.settleMs, () => settle(transfer, 'SUCCESSFUL'));
        }
        if (transfer.status === 'FAILED') transfer.complete_message = 'DISBURSE FAILED: Account resolve failed';
        if (transfer.status === 'SUCCESSFUL') transfer.complete_message = 'Transaction was successful';
        const reverseAfterMs = planned?.reverseAfterMs;
        if (reverseAfterMs !== undefined) later(reverseAfterMs, () => (transfer.status === 'SUCCESSFUL' ? settle(transfer, 'REVERSED') : undefined));
        const answer = { status: 'success', message: 'Transfer Queued Successfully', data: { ...transfer } };
        if (planned?.answer === '5xx') return send(res, 500, { status: 'error', message: 'Internal server error', data: null });
        if (planned?.answer === 'hang') return later(options.hangMs, () => res.destroy());
        if (account === '0000000008') return later(options.hangMs, () => (res.destroyed ? undefined : send(res, 200, answer)));
        return send(res, 200, answer);
      }
      if (req.method === 'GET' && (url.pathname === '/v3/transfers' || /^\/v3\/transfers\/\d+$/.test(url.pathname))) {
        if (options.fetchDown) return send(res, 503, { status: 'error', message: 'Service unavailable', data: null });
        const id = /^\/v3\/transfers\/(\d+)$/.exec(url.pathname)?.[1];
        const reference = options.listIgnoresReference ? null : url.searchParams.get('reference');
        const found = [...transfers.values()].filter((t) => (id ? String(t.id) === id : reference ? t.reference === reference : true));
        const visible = found.filter((t) => (visibleAt.get(t.reference) ?? 0) <= Date.now());
        if (id)
          return visible[0]
            ? send(res, 200, { status: 'success', message: 'Transfer fetched', data: visible[0] })
            : send(res, 404, { status: 'error', message: 'Transfer not found', data: null });
        return send(res, 200, {
          status: 'success',
          message: 'Transfers fetched',
          meta: { page_info: { total: visible.length, current_page: 1, total_pages: 1 } },
          data: visible,
        });
      }
      send(res, 404, { status: 'error', message: 'Not found', data: null });
    })().catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let up = true;

  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    hash,
    requests,
    transfers,
    options,
    complete(reference, status = 'SUCCESSFUL') {
      const transfer = transfers.get(reference);
      if (transfer) settle(transfer, status);
    },
    reverse(reference) {
      const transfer = transfers.get(reference);
      if (transfer?.status === 'SUCCESSFUL') settle(transfer, 'REVERSED');
    },
    count: (method, path) => requests.filter((r) => r.method === method && r.path === path).length,
    async goDown() {
      if (!up) return;
      up = false;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Clients see their kept-alive connections close before anyone calls again.
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
    async comeUp() {
      if (up) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      up = true;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const socket of sockets) socket.destroy();
      if (up) await new Promise<void>((resolve) => server.close(() => resolve()));
      up = false;
    },
  };
}

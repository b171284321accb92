import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached the stand-in, its JSON body parsed. */
export interface TermiiRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * What the stand-in does with one request: answer it (after `delayMs`), with
 * Termii's success body unless `status`/`body` say otherwise, or `hang` (never
 * answer: the client's timeout fires). `delivered: false` means the message
 * never left (a refusal); a hang or a 5xx may still have sent it, as a real
 * provider that fails after accepting.
 */
export type TermiiReply = { status?: number; body?: unknown; delayMs?: number; delivered?: boolean } | 'hang';

export interface TermiiStandIn {
  url: string;
  requests: TermiiRequest[];
  /** Messages that reached a phone: sms and voice sends the plan did not refuse. */
  delivered: TermiiRequest[];
  reply: (req: TermiiRequest) => TermiiReply;
  close(): Promise<void>;
}

const readJson = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      try {
        resolve(raw ? (JSON.parse(raw) as Record<string, unknown>) : {});
      } catch {
        resolve({});
      }
    });
  });

/**
 * A local stand-in of Termii's documented send endpoints (`POST /api/sms/send`,
 * `POST /api/sms/otp/call`) on 127.0.0.1: it records every request and answers
 * `{code: 'ok', message_id, message: 'Successfully Sent'}` unless `reply` says
 * otherwise.
 */
export async function startTermiiStandIn(reply: TermiiStandIn['reply'] = () => ({})): Promise<TermiiStandIn> {
  let sequence = 0;
  const standIn: TermiiStandIn = {
    url: '',
    requests: [],
    delivered: [],
    reply,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    // An answer that throws ends its connection (the client sees a reset), never the process.
    void (async () => {
      const entry: TermiiRequest = { method: req.method ?? '', path: req.url ?? '', body: await readJson(req), at: Date.now() };
      standIn.requests.push(entry);
      const planned = standIn.reply(entry);
      const isSend = entry.path === '/api/sms/send' || entry.path === '/api/sms/otp/call';
      if (isSend && (planned === 'hang' || planned.delivered !== false)) standIn.delivered.push(entry);
      if (planned === 'hang') return;
      if (planned.delayMs) await new Promise((r) => setTimeout(r, planned.delayMs));
      if (res.destroyed) return;
      const status = planned.status ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          planned.body ?? (status === 200 ? { code: 'ok', message_id: `m${++sequence}`, message: 'Successfully Sent' } : { message: 'Internal error' }),
        ),
      );
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

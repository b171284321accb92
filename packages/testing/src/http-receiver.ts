import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body bytes exactly as they arrived. */
  rawBody: Buffer;
  /** Date.now() when the request's body had fully arrived. */
  receivedAt: number;
}

/** How the receiver answers one request: a status, or `hang` to never answer. */
export type ReceiverReply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface HttpReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer; `index` counts requests from 0. Default: 200. */
  reply: (req: ReceivedRequest, index: number) => ReceiverReply;
  close: () => Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) standing in for a third party (a
 * webhook receiver, a provider API): it records every request with its raw body
 * and answers as the test decides.
 */
export async function startHttpReceiver(reply?: HttpReceiver['reply']): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const receiver = { requests, reply: reply ?? (() => ({ status: 200, body: 'ok' })) } as HttpReceiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      const answer = receiver.reply(received, index);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

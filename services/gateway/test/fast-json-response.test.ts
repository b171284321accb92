// Risk: the gateway's cheaper res.json (useFastJson) answering other bytes or
// headers than express's own would for the same handler and request.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { useFastJson } from '../src/http/respond';

const LONG = 'x'.repeat(1500);

/** The handlers of both apps: each answers as a gateway route might. */
function appOf(fast: boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (fast) useFastJson(app);
  app.all('/plain', (_req, res) => {
    res.setHeader('X-Request-Id', 'r-1');
    res.status(200).json({ data: { id: 1, name: 'naïve ₦' }, meta: { request_id: 'r-1' } });
  });
  app.get('/long', (_req, res) => res.status(201).json({ data: LONG }));
  app.get('/string', (_req, res) => res.json('text'));
  app.get('/null', (_req, res) => res.json(null));
  app.get('/undefined', (_req, res) => res.json(undefined));
  app.get('/typed', (_req, res) => res.type('application/problem+json').status(404).json({ error: 'x' }));
  app.get('/no-content', (_req, res) => res.status(204).json({ data: 1 }));
  app.get('/reset', (_req, res) => res.status(205).json({ data: 1 }));
  return app;
}

/** The raw response to `request`, its Date header blanked. */
async function rawAnswer(app: Express, request: string): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.write(request);
    socket.end();
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('latin1')
      .replace(/^Date: .*$/m, 'Date: -');
  } finally {
    server.close();
  }
}

const requests: Record<string, string> = {
  plain: 'GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  post: 'POST /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
  head: 'HEAD /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'if-none-match *': 'GET /plain HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\nConnection: close\r\n\r\n',
  'if-modified-since': 'GET /plain HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT\r\nConnection: close\r\n\r\n',
  long: 'GET /long HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  string: 'GET /string HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  null: 'GET /null HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  undefined: 'GET /undefined HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  typed: 'GET /typed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'no-content': 'GET /no-content HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  reset: 'GET /reset HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
};

test.each(Object.keys(requests))('useFastJson answers %s with the bytes express would', async (name) => {
  const request = requests[name]!;
  const expected = await rawAnswer(appOf(false), request);
  const actual = await rawAnswer(appOf(true), request);
  expect(expected).toMatch(/^HTTP\/1\.1 \d{3} /);
  expect(actual).toBe(expected);
});

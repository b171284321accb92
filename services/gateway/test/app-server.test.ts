// Risk: the gateway's server (createAppServer) making requests and responses
// that are not express's, so the directly dispatched /v1 routes lose express's
// methods, or moving them per request again (the cost it removes); and its
// `listen` not keeping express's callback contract.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer, listenOnAppServer } from '../src/http/app-server';

test('requests and responses arrive on express’s prototypes, before express touches them', async () => {
  const app = express();
  app.get('/', (req, res) => res.json({ ip: typeof req.ip, app: req.app === app }));
  const server = createAppServer(app);
  const seen: boolean[] = [];
  server.prependListener('request', (req, res) => seen.push(app.request.isPrototypeOf(req), app.response.isPrototypeOf(res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ip: 'string', app: true });
    expect(seen).toEqual([true, true]);
  } finally {
    server.close();
  }
});

test('the app’s listen serves on that server, and tells its callback of a listening error as express’s does', async () => {
  const app = express();
  app.get('/', (req, res) => res.json({ made: app.request.isPrototypeOf(req) }));
  listenOnAppServer(app);
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const { port } = server.address() as AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toEqual({ made: true });
    const told = await new Promise<unknown>((resolve) => {
      const taken = app.listen(port, '127.0.0.1', (err?: Error) => {
        taken.close();
        resolve(err);
      });
    });
    expect(told).toMatchObject({ code: 'EADDRINUSE' });
  } finally {
    server.close();
  }
});

/** Sends `raw` on a socket of its own and reads the whole answer, up to the server's close. */
function sendRaw(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

test.each([
  ['headers past the size limit', `GET /v1/verifications/${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
  ['a request line that is not HTTP', 'NOT HTTP AT ALL\r\n\r\n', 400],
])('a request Node cannot read (%s) is answered in the error envelope', async (_name, raw, status) => {
  const server = createAppServer(express());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const answer = await sendRaw((server.address() as AddressInfo).port, raw);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body!)).toEqual({
      error: { code: 'invalid_request', message: expect.any(String) },
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  } finally {
    server.close();
  }
});

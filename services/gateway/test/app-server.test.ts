// Risk: the gateway's server (createAppServer) making requests and responses
// that are not express's, so the directly dispatched /v1 routes lose express's
// methods, or moving them per request again (the cost it removes); and its
// `listen` not keeping express's callback contract.
import http from 'node:http';
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

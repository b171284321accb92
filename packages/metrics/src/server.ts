import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasOperatorToken } from './auth';
import { renderMetrics, type CowrieMetrics } from './metrics';

export interface MetricsServerOptions {
  metrics: CowrieMetrics;
  port: number;
  host: string;
  /** When set, /metrics needs `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** /readyz answers 200 while this resolves true; 503 otherwise (and always once stopping). */
  ready?: () => Promise<boolean>;
}

export interface MetricsServer {
  url: string;
  /** Marks the process as stopping: /readyz answers 503 from now on. */
  draining(): void;
  close(): Promise<void>;
}

/**
 * A worker's small HTTP port: GET /metrics (Prometheus text), /healthz
 * (process up) and /readyz (dependencies answer and not stopping).
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  let stopping = false;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') return reply(405, JSON.stringify({ error: 'method not allowed' }));
    if (path === '/healthz') return reply(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      if (stopping) return reply(503, JSON.stringify({ status: 'stopping' }));
      const check = opts.ready ? opts.ready().catch(() => false) : Promise.resolve(true);
      void check.then((ok) => reply(ok ? 200 : 503, JSON.stringify({ status: ok ? 'ready' : 'not_ready' })));
      return;
    }
    if (path === '/metrics') {
      if (opts.token && !hasOperatorToken(req.headers.authorization, opts.token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return reply(401, JSON.stringify({ error: 'operator token required' }));
      }
      void renderMetrics(opts.metrics).then(
        ({ body, contentType }) => reply(200, body, contentType),
        (err: Error) => reply(500, JSON.stringify({ error: err.message })),
      );
      return;
    }
    reply(404, JSON.stringify({ error: 'not found' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    draining: () => {
      stopping = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

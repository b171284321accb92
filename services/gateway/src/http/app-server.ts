import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { errorEnvelope } from '@cowrie/core';

/**
 * The HTTP server of `app`, whose requests and responses are made with
 * express's request and response prototypes from the start. express's own
 * `listen` makes plain Node objects and moves each one onto its prototypes
 * per request (`Object.setPrototypeOf`), which leaves V8 to rebuild their
 * shapes: in the gateway's CPU profile, the first property writes after that
 * move were most of the direct dispatch's own time. express's handling still
 * sets the same prototypes, so nothing it does changes.
 */
export function createAppServer(app: Express): http.Server {
  class AppRequest extends http.IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  const server = http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
  server.on('clientError', answerUnreadableRequest);
  return server;
}

/** Node's own refusals of a request it could not read, with the status Node would give them. */
const UNREADABLE: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'The request line and headers are longer than the server takes (16 KB)',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time' },
};
const NOT_HTTP = { status: 400, reason: 'Bad Request', message: 'The request could not be read as HTTP/1.1' };

/**
 * A request Node could not read (headers past its size limit, a request line
 * that is not HTTP, one that never finished arriving) has no request or
 * response object: Node would answer its status with an empty body. It is
 * answered here in the API's error envelope, written to the socket, which
 * then closes.
 */
function answerUnreadableRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = UNREADABLE[err.code ?? ''] ?? NOT_HTTP;
  const body = JSON.stringify(errorEnvelope('invalid_request', message, randomUUID()));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `app.listen` on createAppServer's server, as express's `listen` is on
 * Node's: the same arguments, and a callback told of a listening error too.
 */
export function listenOnAppServer(app: Express): void {
  app.listen = function listen(...args: unknown[]) {
    const server = createAppServer(app);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      let told = false;
      const once = (...outcome: unknown[]) => {
        if (told) return;
        told = true;
        (last as (...a: unknown[]) => void)(...outcome);
      };
      args[args.length - 1] = once;
      server.once('error', once);
    }
    return server.listen(...(args as Parameters<http.Server['listen']>));
  } as Express['listen'];
}

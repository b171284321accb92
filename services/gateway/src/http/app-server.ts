import http from 'node:http';
import type { Express } from 'express';

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
  return http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
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

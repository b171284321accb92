import type { Logger, TMode } from '@cowrie/core';
import type { TAuthenticatedKey, TSession } from '@cowrie/accounts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** UUID of this request, also sent as X-Request-Id and in every log line. */
      id: string;
      log: Logger;
      /** The API key of a /v1 request. */
      apiKey?: TAuthenticatedKey;
      /**
       * The dashboard session of a session-authenticated request: `workspaceId`
       * is the workspace of the mode the request chose (Cowrie-Mode header).
       */
      session?: TSession & { mode: TMode };
      /** The request's Idempotency-Key and request hash, when it carried one (POST /v1). */
      idempotency?: { key: string; requestHash: string };
    }
  }
}

export {};

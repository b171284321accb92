import type { Logger, Mode } from '@cowrie/core';
import type { AuthenticatedKey, CurrentSessionUser, Session } from '@cowrie/accounts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** UUID of this request, also sent as X-Request-Id and in every log line. */
      id: string;
      log: Logger;
      /** The API key of a /v1 request. */
      apiKey?: AuthenticatedKey;
      /**
       * The dashboard session of a session-authenticated request: `workspaceId`
       * is the workspace of the mode the request chose (Cowrie-Mode header),
       * `businessId` the live workspace its users belong to.
       */
      session?: Session & { mode: Mode; businessId: number } & CurrentSessionUser;
      /** The request's Idempotency-Key and request hash, when it carried one (POST /v1). */
      idempotency?: { key: string; requestHash: string };
    }
  }
}

export {};

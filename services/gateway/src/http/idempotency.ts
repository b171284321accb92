import type { RequestHandler, Response } from 'express';
import { AppError, decryptSecret, encryptSecret } from '@cowrie/core';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  claimOrWaitIdempotencyKey,
  completeIdempotencyKey,
  idempotencyRequestHash,
  reclaimIdempotencyKey,
  releaseIdempotencyKey,
  type ClaimOutcome,
} from '@cowrie/api-limits';
import { payoutAnswerKeepable, payoutAnswerStands } from '@cowrie/payouts';
import type { GatewayDeps } from '../deps';
import { assertInputShape } from './validate';
import { assertScope, assertSessionMay, routeHiddenFromKey } from './api-auth';
import { sessionRuleOf, type RouteRegistry } from './route-registry';

/** A stored answer sealed with ENCRYPTION_KEY; an answer itself is always an envelope ({data, meta} or {error}), never this shape. */
interface SealedAnswer {
  sealed: string;
}

const isSealedAnswer = (body: unknown): body is SealedAnswer =>
  typeof body === 'object' && body !== null && Object.keys(body).length === 1 && typeof (body as { sealed?: unknown }).sealed === 'string';

function withRequestId(body: unknown, requestId: string): unknown {
  if (body && typeof body === 'object' && 'meta' in body) {
    return { ...(body as object), meta: { ...((body as { meta: object }).meta ?? {}), request_id: requestId } };
  }
  if (body && typeof body === 'object' && 'request_id' in body) return { ...(body as object), request_id: requestId };
  return body;
}

/**
 * The Idempotency-Key header on POST /v1,
 * and on the dashboard POSTs marked `idempotent` (keyed by the session's workspace,
 * answered only to the user who sent it first).
 * Where a looser rule would leave concurrent requests unordered, a second
 * request with a key still in flight waits for the first and replays it, or gets 409 if it does not finish in time:
 * the two never both execute.
 */
export function idempotencyLayer(deps: Pick<GatewayDeps, 'db' | 'sql' | 'config'>): RequestHandler {
  // An answer that may carry a secret (a new API key, a one-time password) is stored sealed with ENCRYPTION_KEY, never readable at rest.
  const seal = (body: unknown): SealedAnswer => ({ sealed: encryptSecret(JSON.stringify(body), deps.config.ENCRYPTION_KEY) });
  const unseal = (stored: SealedAnswer) => JSON.parse(decryptSecret(stored.sealed, deps.config.ENCRYPTION_KEY)) as unknown;
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const raw = req.get('Idempotency-Key');
    const key = raw?.trim();
    if (!key) return next();
    if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw new AppError('invalid_request', `Idempotency-Key must be under ${IDEMPOTENCY_KEY_MAX_LENGTH + 1} characters`, {
        details: { field: 'Idempotency-Key' },
      });
    }
    // A key without the route's scope, or a session user without its role, is
    // refused before anything is looked up: neither may be handed the stored
    // answer (a new API key, a one-time password) of a caller who had it.
    // Routing is case-sensitive like this lookup (app.ts), so a route Express
    // serves is one the registry finds.
    const found = (req.app.locals.routes as RouteRegistry | undefined)?.routeFor(req.method, req.baseUrl + req.path);
    // A route hidden from this key (a test helper to a live key) is an unknown route here too.
    const route = found && !routeHiddenFromKey(req, found.auth) ? found : undefined;
    if (route?.auth.kind === 'api_key' && route.auth.scope) assertScope(req, route.auth.scope);
    // A scope read from the body (a test helper's event) too: the same body stored the answer, so it names the same scope.
    // A body that names none is one the route's schema refuses, and so stored no answer.
    const inputScope = route?.auth.kind === 'api_key' ? route.auth.scopeByInput?.scopeOf(req.body) : undefined;
    if (inputScope) assertScope(req, inputScope);
    // The same for a session that has not stepped up: a replay hands over what the request would make.
    if (route?.auth.kind === 'session') assertSessionMay(req, sessionRuleOf({ method: route.method, auth: route.auth }, req.body));
    // Stored in clear only when the route is known to answer no secret.
    const sealed = route === undefined || route.responseHoldsSecret === true;
    const workspaceId = req.apiKey?.workspaceId ?? req.session?.workspaceId;
    if (workspaceId === undefined) return next();
    // The hash walks the whole body: a body the routes would refuse is refused first, the same way.
    assertInputShape(req.body);
    // A session's key is its user's: another user of the workspace sending the same key and body gets 409, not this user's answer.
    const caller = req.session ? `user-${req.session.userId}` : undefined;
    const requestHash = idempotencyRequestHash(req.method, req.baseUrl + req.path, req.body, caller);
    // Handlers that create money movements record the key with them (a unique
    // index refuses a second), so no failure of this layer can run one twice.
    req.idempotency = { key, requestHash };
    const claim = () => claimOrWaitIdempotencyKey(deps.db, { workspaceId, key, requestHash, waitMs: deps.config.IDEMPOTENCY_WAIT_MS });
    let outcome: ClaimOutcome = await claim();
    // A stored payout answer whose payout failed since is no longer the key's: the request runs as a new attempt.
    while (outcome.kind === 'replay' && route?.answersPayout && !(await payoutAnswerStands(deps.sql, workspaceId, outcome.body))) {
      outcome = (await reclaimIdempotencyKey(deps.db, { workspaceId, key, claimedAt: outcome.claimedAt })) ? { kind: 'claimed' } : await claim();
    }
    if (outcome.kind === 'conflict') {
      throw new AppError('idempotency_conflict', 'This Idempotency-Key was reused with a different request body (or method or path)');
    }
    if (outcome.kind === 'in_flight') {
      throw new AppError('idempotency_conflict', 'A request with this Idempotency-Key is still in progress; retry shortly');
    }
    if (outcome.kind === 'replay') {
      res.set('Idempotent-Replayed', 'true');
      // Whether it was stored sealed is read from the record (the route's flag may have changed since).
      const storedSealed = isSealedAnswer(outcome.body);
      if (storedSealed || sealed) res.set('Cache-Control', 'no-store');
      res.status(outcome.status).json(withRequestId(isSealedAnswer(outcome.body) ? unseal(outcome.body) : outcome.body, req.id));
      return;
    }
    captureOutcome(
      res,
      async (status, body) => {
        // A success is kept for replay; a 201 naming a payout that failed is not: a retry after a definite failure runs a new attempt.
        const keep = status >= 200 && status < 300 && (!route?.answersPayout || payoutAnswerKeepable(body));
        if (keep) await completeIdempotencyKey(deps.db, { workspaceId, key, status, body: sealed ? seal(body) : body });
        else await releaseIdempotencyKey(deps.db, { workspaceId, key });
      },
      req.log,
    );
    // A request whose client went away still finishes and stores its outcome; one
    // whose process died leaves a claim that goes stale and can be taken over
    // (a payout it created is found by its key on the ledger row, not made again).
    next();
  };
}

/**
 * Stores the outcome before the response leaves, so a client that saw a
 * success always finds it stored. If storing a success fails, the claim is
 * kept, never released: the handler did its work, so a retry must not run it
 * again before the claim goes stale (and a payout is guarded beyond that by
 * its key on the ledger row).
 */
function captureOutcome(res: Response, store: (status: number, body: unknown) => Promise<void>, log: { error: (obj: object, msg: string) => void }) {
  const send = res.json.bind(res);
  let handled = false;
  res.json = (body: unknown) => {
    if (handled) return send(body);
    handled = true;
    store(res.statusCode, body)
      .catch((err) => log.error({ err }, 'could not store the idempotent response; its claim is kept'))
      .finally(() => send(body));
    return res;
  };
}

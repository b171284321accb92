import type { Request } from 'express';
import { apiKeyPrefix, recordAuditEvent, type AuditAction, type AuditContext, type AuditEventInput } from '@cowrie/accounts';
import type { DbOrTx } from '@cowrie/db';

/** Who acted and on which workspace, when the request's own session or key does not say (a sign-in). */
type Who = Pick<AuditContext, 'workspaceId' | 'actor'>;

/** Where a request came from: its client address (`req.ip`, so the proxy setting applies), user agent and request id. */
export function requestOrigin(req: Request): Omit<AuditContext, 'workspaceId' | 'actor'> {
  return { clientAddress: req.ip ?? req.socket.remoteAddress ?? null, userAgent: req.get('user-agent') ?? null, requestId: req.id };
}

/**
 * The audit context of a request: its origin, and who acted on which
 * workspace: the session's user on the side its Cowrie-Mode chose, or the
 * API key on its own side; `who` when the request carries neither yet.
 */
function auditContextOf(req: Request, who?: Who): AuditContext {
  const origin = requestOrigin(req);
  if (who) return { ...origin, ...who };
  if (req.session) {
    return { ...origin, workspaceId: req.session.workspaceId, actor: { type: 'user', userId: req.session.userId, email: req.session.email } };
  }
  if (req.apiKey) {
    return { ...origin, workspaceId: req.apiKey.workspaceId, actor: { type: 'api_key', prefix: apiKeyPrefix(req.apiKey) } };
  }
  return { ...origin, workspaceId: null, actor: { type: 'anonymous' } };
}

/** Records a request's action in the transaction `tx` that does it: both commit, or neither. */
export function recordAudit<A extends AuditAction>(tx: DbOrTx, req: Request, event: AuditEventInput<A>, who?: Who): Promise<void> {
  return recordAuditEvent(tx, auditContextOf(req, who), event);
}

/**
 * Records a request's action that has already committed (one with its own
 * transaction, or a network call inside, or none to join). A failure is
 * logged and the request answers anyway: the action happened, and its answer
 * (a secret shown once, say) must reach the client.
 */
export async function recordAuditAfter<A extends AuditAction>(db: DbOrTx, req: Request, event: AuditEventInput<A>, who?: Who): Promise<void> {
  await auditAfter(req, event.action, () => recordAuditEvent(db, auditContextOf(req, who), event));
}

/** Runs a recording that follows a committed action: its failure is logged as an error, never thrown. */
export async function auditAfter(req: Request, action: AuditAction, record: () => Promise<void>): Promise<void> {
  try {
    await record();
  } catch (err) {
    req.log.error({ err, action }, 'audit event not recorded');
  }
}

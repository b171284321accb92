import { AppError, type Logger } from '@cowrie/core';
import type { DbOrTx, SqlPool } from '@cowrie/db';
import { returnSandboxTransfer, type ModeRails } from '@cowrie/rails';
import { receivePayoutNotification } from './rail-notifications';
import { renderTransaction, type RenderedTransaction } from './render';

const findPayout = (db: DbOrTx, workspaceId: number, reference: string) => db.ledgerTransaction.findFirst({ where: { workspaceId, reference, type: 'debit' } });

/**
 * The reverse test helper: the sandbox bank returns one of the workspace's
 * completed sandbox payouts now, and its notification is applied at once
 * through the path every rail notification takes (receivePayoutNotification),
 * so the payout is `reversed`, its amount and fees credited back once and one
 * transfer.reversed event recorded, as when the bank returns a transfer to
 * 0000000003 by itself. The due-reversal loop would send the same
 * notification within its interval; whichever applies first wins, the other
 * changes nothing. Answers the payout as it now stands: a payout already
 * reversed is answered as it is. Not found (404): no payout of this workspace
 * has the reference; 400: it is not completed (still processing, or failed),
 * or it did not go through the sandbox rail.
 */
export async function reverseSandboxPayout(
  deps: { db: DbOrTx; sql: SqlPool; rails: ModeRails; log: Logger },
  input: { workspaceId: number; reference: string },
): Promise<RenderedTransaction> {
  const payout = await findPayout(deps.db, input.workspaceId, input.reference);
  if (!payout) throw new AppError('not_found', 'Payout not found');
  if (payout.status === 'reversed') return renderTransaction(payout);
  if (payout.status !== 'completed') {
    throw new AppError('invalid_request', `Only a completed payout can be reversed; this one is ${payout.status}`, {
      details: { field: 'reference', status: payout.status },
    });
  }
  if (payout.provider !== 'sandbox') {
    throw new AppError('invalid_request', 'Only a payout sent through the sandbox rail can be reversed here', { details: { field: 'reference' } });
  }
  const notice = await returnSandboxTransfer(deps.sql, payout.reference);
  if (!notice) throw new AppError('invalid_request', 'The sandbox bank holds no completed transfer with this reference', { details: { field: 'reference' } });
  await receivePayoutNotification(
    { sql: deps.sql, rails: deps.rails, log: deps.log },
    { provider: 'sandbox', event: 'transfer.reversed', reference: notice.reference, payload: notice.payload },
  );
  const now = await findPayout(deps.db, input.workspaceId, input.reference);
  return renderTransaction(now ?? payout);
}

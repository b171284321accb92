import { defineStatement, pickColumns, sqlParam, type SqlQueryable } from '@cowrie/db';
import { ledgerTransactionColumns } from '@cowrie/ledger';

/**
 * Which answers to a payout request an Idempotency-Key may keep for replay.
 * Only successful responses are stored, and a retry after a definite failure
 * runs a new attempt (docs/send-payouts.md): so an answer
 * that names a `failed` payout is not kept (a 201 whose rail said "failed"
 * included), and a kept answer that named a `processing` payout stands only
 * while that payout has not failed since. An answer naming a `processing`,
 * `completed` or `reversed` payout is replayed as it was sent.
 */

/** The payout a success envelope names: its `data`, when that is a ledger transaction (a payout request awaiting approval is not). */
function payoutNamed(answer: unknown): { id: number; status: string } | null {
  const data = (answer as { data?: unknown } | null)?.data as { id?: unknown; status?: unknown; reference?: unknown } | undefined;
  if (!data || typeof data.id !== 'number' || typeof data.status !== 'string' || typeof data.reference !== 'string') return null;
  return data.reference.startsWith('snd_') ? { id: data.id, status: data.status } : null;
}

/** Whether a success answer to a payout request may be stored for replay: not when the payout it names failed. */
export const payoutAnswerKeepable = (answer: unknown): boolean => payoutNamed(answer)?.status !== 'failed';

const PAYOUT_STATUS = defineStatement({
  name: 'cowrie-payout-status',
  params: { workspaceId: sqlParam.int, id: sqlParam.int },
  text: (p) => `SELECT "status" FROM "LedgerTransaction" WHERE "id" = ${p.id} AND "workspaceId" = ${p.workspaceId}`,
  result: pickColumns(ledgerTransactionColumns, ['status']),
});

/**
 * Whether a stored answer to a payout request is still the key's answer: not
 * when the payout it named as `processing` has failed since (one read, only
 * then), which frees the key for a new attempt.
 */
export async function payoutAnswerStands(sql: SqlQueryable, workspaceId: number, answer: unknown): Promise<boolean> {
  const payout = payoutNamed(answer);
  if (!payout) return true;
  if (payout.status !== 'processing') return payout.status !== 'failed';
  const { rows } = await PAYOUT_STATUS.run(sql, { workspaceId, id: payout.id });
  return rows[0]?.status !== 'failed';
}

import type { DbOrTx } from '@cowrie/db';
import { listWallets, renderBalance } from '@cowrie/ledger';

/** GET /v1/balances: one row per wallet, `{currency, available, pending, ledger, status}`. */
export async function listBalances(db: DbOrTx, workspaceId: number) {
  return (await listWallets(db, workspaceId)).map(renderBalance);
}

import { Decimal, formatAmount } from '@cowrie/core';
import { currencyStatus } from '@cowrie/catalog';
import type { DbOrTx, Wallet } from '@cowrie/db';

/** The three balances of a wallet: available = ledger - pending. */
export function walletBalances(wallet: Pick<Wallet, 'balance' | 'held'>) {
  const ledger = new Decimal(wallet.balance.toString());
  const pending = new Decimal(wallet.held.toString());
  return { available: ledger.minus(pending), pending, ledger };
}

/** A wallet as `GET /v1/balances` renders it. */
export function renderBalance(wallet: Wallet) {
  const { available, pending, ledger } = walletBalances(wallet);
  return {
    currency: wallet.currency,
    available: formatAmount(available),
    pending: formatAmount(pending),
    ledger: formatAmount(ledger),
    status: currencyStatus(wallet.currency) ?? 'coming_soon',
  };
}

export function findWallet(db: DbOrTx, workspaceId: number, currency: string) {
  return db.wallet.findUnique({ where: { workspaceId_currency: { workspaceId, currency: currency.toUpperCase() } } });
}

export function listWallets(db: DbOrTx, workspaceId: number) {
  return db.wallet.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
}

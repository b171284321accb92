/**
 * The currencies of the wallet catalog: every currency a workspace holds a
 * wallet in, in the catalog's order (@cowrie/catalog's WALLET_CATALOG gives
 * each its status). Here rather than in @cowrie/catalog so that loadConfig
 * refuses, by name, a deposit channel override in a currency no wallet holds
 * (money paid in it could never be credited).
 */
export const WALLET_CURRENCIES = ['NGN', 'EUR', 'GBP', 'USD', 'USDT', 'JPY'] as const;
export type WalletCurrency = (typeof WALLET_CURRENCIES)[number];

/** Whether `currency` (any letter case) is one of the wallet catalog's. */
export const isWalletCurrency = (currency: string): boolean => (WALLET_CURRENCIES as readonly string[]).includes(currency.toUpperCase());

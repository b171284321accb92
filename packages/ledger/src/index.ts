export * from './wallets';
export * from './references';
export * from './credit-wallet';
export * from './audit';
export * from './transaction-rows';
export * from './held-debits';
export * from './reversals';

export * from './wallets';
export * from './references';
export * from './credit-wallet';
export * from './holds';
export * from './audit';

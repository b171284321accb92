// Loaded with import() by the commands that need it, never at start. esbuild keeps
// every export of a module loaded with import(), so each such module is this short
// list rather than a package's whole index (which would load its other dependencies).
export { parseAmount } from '@cowrie/core';
export { currencyStatus } from '@cowrie/catalog';
export { auditLedger, creditWallet, findWallet, renderBalance } from '@cowrie/ledger';

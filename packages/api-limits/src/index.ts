export * from './fixed-window';
export * from './sliding-window';
export * from './public-api-rate-limit';
export * from './idempotency';
export * from './dashboard-limits';
export * from './attempt-window';
export * from './sign-in-limits';
export * from './client-address';
export { runScript } from './run-script';

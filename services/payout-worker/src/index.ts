export * from './worker';
export { hasLivePayoutJob, requeuePayout } from './handlers';

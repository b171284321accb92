export * from './define-queue';
export * from './payouts';
export * from './verifications';
export * from './webhooks';
export * from './wait-for-job';

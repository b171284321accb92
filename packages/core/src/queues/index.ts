export * from './define-queue';
export * from './wait-for-job';
export * from './telemetry';
export * from './requeue';

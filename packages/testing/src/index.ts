export * from './test-env';
export * from './secrets-scan';
export * from './scenarios';
export * from './gateway';
export * from './http-receiver';
export * from './redis-server';
export * from './service-process';
export * from './seeded-random';

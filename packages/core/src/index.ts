export * from './config';
export * from './errors';
export * from './envelope';
export * from './logger';
export * from './money';
export * from './redis';
export * from './crypto';
export * from './queues';

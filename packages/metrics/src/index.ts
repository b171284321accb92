export * from './metrics';
export * from './instrument';
export * from './auth';
export * from './server';
export * from './parse';

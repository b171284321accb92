export * from './worker';

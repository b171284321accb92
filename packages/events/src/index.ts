export * from './define-events';
export * from './schemas';
export * from './catalog';

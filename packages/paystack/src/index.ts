export * from './client';
export * from './kobo';

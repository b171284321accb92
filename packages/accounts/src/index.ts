export * from './scopes';
export * from './api-keys';
export * from './passwords';
export * from './users';
export * from './sessions';
export * from './workspaces';
export * from './api-key-cache';
export * from './team';

export * from './queue-worker';
export * from './service-worker';
export * from './run-service';
export * from './dependencies';
export * from './metrics-port';
export * from './polling-loop';
export * from './unhandled-rejections';
export * from './heap-growth';
export { stopTracing, tracingStarted } from './tracing';

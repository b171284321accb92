export { createApp } from './app';
export { createGatewayDeps, closeGatewayDeps, type GatewayDeps } from './deps';

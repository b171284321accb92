export { createApp, routesOf } from './app';
export { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
export { createGatewayDeps, closeGatewayDeps, type GatewayDeps } from './deps';

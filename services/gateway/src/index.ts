export { createApp, routesOf } from './app';
export { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
export { OPERATION_EXAMPLES, WEBHOOK_EXAMPLES } from './openapi/examples';
export { TRIGGERABLE_EVENTS, WEBHOOK_EVENTS, webhookEventTypes } from './openapi/webhooks';
export { DASHBOARD_CSP } from './routes/dashboard-app';
export { createGatewayDeps, closeGatewayDeps, type GatewayDeps } from './deps';

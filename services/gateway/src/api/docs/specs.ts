import type { AnyRouteSpec } from '../../http/route-registry';

/**
 * The OpenAPI document, without authentication, at the root mount (ahead of
 * the /v1 router, whose API key it does not need): keyed by its operationId.
 */
export const docsSpecs = {
  getOpenApiDocument: {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Operations',
    auth: { kind: 'none' },
    responses: { 200: { description: 'The document, generated from the schemas that validate requests', raw: true } },
  },
} satisfies Record<string, AnyRouteSpec>;

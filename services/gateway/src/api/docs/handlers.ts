import type { HandlersOf, RouteRegistry } from '../../http/route-registry';
import { buildOpenApiDocument, type OpenApiDocument } from '../../openapi/document';
import type { docsSpecs } from './specs';

/** The handler of the document (docsSpecs): the document of every route `registry` holds. */
export function createDocsHandlers(registry: RouteRegistry): HandlersOf<typeof docsSpecs> {
  let document: OpenApiDocument | undefined;
  // Built on first use, once every route is registered; the routes never change afterwards.
  const documentOf = () => (document ??= buildOpenApiDocument(registry.routes));
  return {
    getOpenApiDocument: (_input, _req, res) => {
      res.set('Cache-Control', 'no-cache').json(documentOf());
    },
  };
}

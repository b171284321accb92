// Writes the API document the gateway serves at /v1/openapi.json to
// packages/sdk/openapi.json, the committed copy the SDK's types are generated
// from (the gateway owns the contract; the SDK only reads the file):
//   npm run sdk:generate              (this, then the SDK's types)
//   npm run openapi -w @cowrie/gateway (this alone)
// tests/contract/openapi-lint.test.ts fails while the copy is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiRoutes } from '../src/api';
import { buildOpenApiDocument } from '../src/openapi/document';

// The routes as data (the api/ specs): nothing is built or started.
const document = buildOpenApiDocument(apiRoutes());
const file = path.join(__dirname, '../../../packages/sdk/openapi.json');
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)} (${Object.keys(document.paths).length} paths)`);
// Loading the routes may leave handles open (clients, timers); nothing else is to be done.
process.exit(0);

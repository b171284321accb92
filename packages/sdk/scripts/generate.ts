// Regenerates the SDK's types from the committed API document, openapi.json
// (written by the gateway, which owns the contract: services/gateway/scripts/write-openapi.ts):
//   npm run sdk:generate              (the document, then this; from the repository root)
//   npm run generate -w @cowrie/sdk   (this alone, from the document as it is)
// Writes packages/sdk/src/generated/openapi.ts (the document's TypeScript
// types, by openapi-typescript, and the method and path of each operation;
// see openapi-types.ts). test/generated.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedOpenApiSource } from './openapi-types';

async function main() {
  const root = path.join(__dirname, '..');
  const { source, paths } = await generatedOpenApiSource(readFileSync(path.join(root, 'openapi.json'), 'utf8'));
  writeFileSync(path.join(root, 'src/generated/openapi.ts'), source);
  console.log(`wrote src/generated/openapi.ts from openapi.json (${paths} paths)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// npm run docs:generate: writes the references made from the code
// (scripts/docs/reference.ts): docs/reference/configuration.md,
// docs/reference/errors.md and the static API reference docs/api/index.html
// (Redocly, from packages/sdk/openapi.json). Run it after changing a config
// variable, an error code or reason, or the API document; the docs test
// (packages/repository/test/docs-reference.test.ts) fails until you do.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_REFERENCE, MARKDOWN_REFERENCES, ROOT } from './reference';

for (const { file, make } of MARKDOWN_REFERENCES) {
  mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true });
  writeFileSync(path.join(ROOT, file), make());
  console.log(`wrote ${file}`);
}
mkdirSync(path.dirname(path.join(ROOT, API_REFERENCE.file)), { recursive: true });
const [bin, ...args] = API_REFERENCE.command(API_REFERENCE.file);
const built = spawnSync(bin!, args, { cwd: ROOT, encoding: 'utf8' });
if (built.status !== 0) {
  console.error(built.stdout + built.stderr);
  process.exit(1);
}
console.log(`wrote ${API_REFERENCE.file}`);

// Runs a compiled service (or the migration) of the image after loading the
// secrets file COWRIE_SECRETS_FILE names, when it names one
// (docker-compose.sandbox.yml; the production compose passes its secrets in
// the environment and runs the services directly):
//
//   node scripts/container/run.mjs services/gateway/dist/main.js
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadSecretsFile } from './secrets-file.mjs';

const [target, ...args] = process.argv.slice(2);
if (!target) {
  console.error('usage: run.mjs <script> [args...]');
  process.exit(2);
}
loadSecretsFile();
const file = path.resolve(target);
// The script sees the command line it would have had on its own.
process.argv = [process.argv[0], file, ...args];
if (file.endsWith('.mjs')) await import(pathToFileURL(file).href);
else createRequire(import.meta.url)(file);

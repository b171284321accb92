#!/usr/bin/env node
// `cowrie` on the image's PATH (docker compose exec gateway cowrie --help):
// the operator CLI, with the sandbox's secrets file loaded first when the
// container names one (COWRIE_SECRETS_FILE), since the CLI reads the same
// configuration as the services.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSecretsFile } from './secrets-file.mjs';

loadSecretsFile();
createRequire(import.meta.url)(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../packages/cli/bin/cowrie.js'));

// The sandbox's generated secrets: a file of KEY=value lines in a volume
// (COWRIE_SECRETS_FILE names it), made once by sandbox-secrets.mjs and read
// into the environment of every process of the sandbox before it starts
// (run.mjs, and the `cowrie` command of the image). A variable already set
// in the environment wins over the file.
import { readFileSync } from 'node:fs';

/** The KEY=value lines of `text`; blank lines and # comments are skipped. */
export function parseSecrets(text) {
  const values = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq > 0) values[trimmed.slice(0, eq)] = trimmed.slice(eq + 1);
  }
  return values;
}

/** Loads COWRIE_SECRETS_FILE, when set, into `env`; stops the process with a clear message when it is set but unreadable. */
export function loadSecretsFile(env = process.env) {
  const file = env.COWRIE_SECRETS_FILE;
  if (!file) return;
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    console.error(`COWRIE_SECRETS_FILE: cannot read ${file} (${err.code ?? err.message}); the one-shot secrets service makes it on first start`);
    process.exit(1);
  }
  for (const [key, value] of Object.entries(parseSecrets(text))) {
    if (env[key] === undefined || env[key] === '') env[key] = value;
  }
}

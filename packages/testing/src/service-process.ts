import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@cowrie/core';

const ROOT = path.join(__dirname, '../../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Everything it printed so far. */
  output: () => string;
}

/**
 * One of the services, compiled (`services/<service>/dist/main.js`, as
 * production runs it; `npm test` builds first), as its own process, on a test
 * env's database, Redis and prefixes, for tests that stop or kill it as an
 * orchestrator would.
 */
export function spawnServiceProcess(config: Config, service: string, extra: Record<string, string> = {}): ServiceProcess {
  const compiled = path.join(ROOT, 'services', service, 'dist/main.js');
  if (!existsSync(compiled)) throw new Error(`services/${service}/dist/main.js is missing: run npm run build first`);
  const child = spawn(process.execPath, [compiled], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      DATABASE_URL: config.DATABASE_URL,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: config.REDIS_URL,
      QUEUE_PREFIX: config.QUEUE_PREFIX,
      REDIS_KEY_PREFIX: config.REDIS_KEY_PREFIX,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

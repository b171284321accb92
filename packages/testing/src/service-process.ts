import { spawn, type ChildProcess } from 'node:child_process';
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
 * One of the services' mains (`services/<service>/src/main.ts`) as its own
 * process, on a test env's database, Redis and prefixes, for tests that stop
 * or kill it as an orchestrator would.
 */
export function spawnServiceProcess(config: Config, service: string, extra: Record<string, string> = {}): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
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

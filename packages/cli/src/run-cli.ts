import { parseArgs } from 'node:util';
import { createRedis, loadConfig, type Config, type RedisClient } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { CliFinding, UsageError, type CliCommand } from './command';
import { COMMANDS } from './commands';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function help(): string {
  return ['usage:', ...COMMANDS.map((c) => `  ${c.usage}`)].join('\n');
}

function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | null {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/**
 * Runs one CLI command: one JSON object on stdout and code 0, or a clear error
 * on stderr and a non-zero code (2 for usage mistakes, 1 for failures).
 */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env): Promise<CliResult> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') return { code: argv.length ? 0 : 2, stdout: '', stderr: help() };
  const found = findCommand(argv);
  if (!found) return { code: 2, stdout: '', stderr: `cowrie: unknown command "${argv.slice(0, 2).join(' ')}"\n${help()}` };
  const { command, rest } = found;
  let db: PrismaClient | undefined;
  let redis: RedisClient | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: Object.fromEntries(command.options.map((o) => [o, command.flags?.includes(o) ? { type: 'boolean' as const } : { type: 'string' as const }])),
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    // A flag given is the string 'true'; one not given is absent.
    const args = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)])) as Record<string, string>;
    const missing = command.required.filter((o) => args[o] === undefined || args[o] === '');
    if (missing.length) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}\nusage: ${command.usage}`);
    const config: Config = loadConfig(env);
    const result = await command.run(args, {
      config,
      db: () => (db ??= createDb({ databaseUrl: config.DATABASE_URL, poolSize: 2 })),
      redis: () => (redis ??= createRedis(config, { name: 'cli' })),
    });
    if (result instanceof CliFinding) return { code: result.code, stdout: JSON.stringify(result.output), stderr: '' };
    return { code: 0, stdout: JSON.stringify(result), stderr: '' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    return { code: usage ? 2 : 1, stdout: '', stderr: `cowrie: ${message}` };
  } finally {
    redis?.disconnect();
    await db?.$disconnect();
  }
}

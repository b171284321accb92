import { parseArgs } from 'node:util';
import type { RedisClient } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { version } from '../package.json';
import { CliFinding, UsageError, type CliCommand, type CliIo } from './command';
import { databaseHint, redisHint, type RedisTarget } from './connection-hint';
import { COMMANDS } from './commands';
import { commandHelp, groupHelp, toolHelp, usageLine } from './help';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | null {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/** What `argv` names when it is not a command: help, the version, a group (`sandbox`), or nothing known. */
function notACommand(argv: string[]): CliResult {
  const [first = ''] = argv;
  if (argv.length === 0) return { code: 2, stdout: '', stderr: toolHelp(COMMANDS) };
  if (isHelp(first)) return { code: 0, stdout: toolHelp(COMMANDS), stderr: '' };
  if (first === 'help') {
    // `cowrie help`, `cowrie help key create`, `cowrie help sandbox`: what --help says
    if (argv.length === 1) return { code: 0, stdout: toolHelp(COMMANDS), stderr: '' };
    const found = findCommand(argv.slice(1));
    return found ? { code: 0, stdout: commandHelp(found.command), stderr: '' } : notACommand([...argv.slice(1), '--help']);
  }
  if (first === '--version') return { code: 0, stdout: version, stderr: '' };
  const group = COMMANDS.filter((c) => c.name.split(' ')[0] === first);
  if (group.length && argv.slice(1).some(isHelp)) return { code: 0, stdout: groupHelp(first, group), stderr: '' };
  if (group.length && (argv.length === 1 || argv[1]!.startsWith('-'))) {
    return { code: 2, stdout: '', stderr: `cowrie: "${first}" needs one of: ${group.map((c) => c.name).join(', ')}\n${groupHelp(first, group)}` };
  }
  return unknown(argv);
}

/**
 * `--amount -5` as `--amount=-5`: a value after a space that starts with a
 * single `-` (a negative number, say) is the option's value, where parseArgs
 * would refuse it as ambiguous in three lines. Another option in its place
 * (`--workspace --scopes read`) stays for parseArgs, answered by
 * `optionWithoutValue`.
 */
function joinDashValues(args: string[], takesValue: ReadonlySet<string>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return [...joined, ...args.slice(i)];
    const next = args[i + 1];
    if (arg.startsWith('--') && takesValue.has(arg.slice(2)) && next !== undefined && /^-[^-]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** The options of `argv` for `command` (and --pretty); a mistake in them is a UsageError or parseArgs's own. */
function parseCommandArgs(command: CliCommand, argv: string[]) {
  const takesValue = new Set(command.options.filter((o) => o.value !== undefined).map((o) => o.name));
  try {
    return parseArgs({
      args: joinDashValues(argv, takesValue),
      options: {
        ...Object.fromEntries(command.options.map((o) => [o.name, o.value === undefined ? { type: 'boolean' as const } : { type: 'string' as const }])),
        pretty: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw optionWithoutValue(err) ?? unknownOption(err, command) ?? err;
  }
}

/** parseArgs's "Unknown option" (with its advice on positionals, which no command takes), as one usage line. */
function unknownOption(err: unknown, command: CliCommand): UsageError | null {
  if (!(err instanceof Error) || (err as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return null;
  const option = /^Unknown option '([^']+)'/.exec(err.message)?.[1];
  return option ? new UsageError(`unknown option ${option}; cowrie ${command.name} --help lists its options`) : null;
}

/** parseArgs's multi-line "argument is ambiguous" (an option where a value should be), as one usage line. */
function optionWithoutValue(err: unknown): UsageError | null {
  if (!(err instanceof Error) || (err as { code?: string }).code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return null;
  const ambiguous = /^Option '--([^' ]+)' argument is ambiguous/.exec(err.message);
  if (!ambiguous) return null;
  const name = ambiguous[1]!;
  return new UsageError(`--${name} needs a value (one that starts with "-" is written --${name}=-…)`);
}

function unknown(argv: string[]): CliResult {
  const named = argv[1]?.startsWith('-') ? argv.slice(0, 1) : argv.slice(0, 2);
  return { code: 2, stdout: '', stderr: `cowrie: unknown command "${named.join(' ')}"\n${toolHelp(COMMANDS)}` };
}

/**
 * Runs one CLI command: one JSON object on stdout and code 0, or a clear error
 * on stderr and a non-zero code (2 for usage mistakes, 1 for failures).
 * `--help`, `-h` and `--version` answer on stdout with code 0 and touch
 * nothing. `io` is where a command reads a password (process.stdin unless given).
 */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io?: Partial<CliIo>): Promise<CliResult> {
  const found = findCommand(argv);
  if (!found) return notACommand(argv);
  const { command, rest } = found;
  if (rest.some(isHelp)) return { code: 0, stdout: commandHelp(command), stderr: '' };
  const warnings: string[] = [];
  const stderr = (lines: string[]) => lines.map((l) => `cowrie: ${l}`).join('\n');
  let db: PrismaClient | undefined;
  let sql: SqlPool | undefined;
  let redis: RedisClient | undefined;
  let databaseUrl: string | undefined;
  let redisTarget: RedisTarget | undefined;
  // The last error Redis's connection raised since it was last ready (a blip it
  // recovered from is forgotten). Listening also keeps ioredis from printing
  // "[ioredis] Unhandled error event" with a stack per reconnect attempt.
  let redisError: Error | null = null;
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const { pretty, ...given } = values;
    // A flag given is the string 'true'; one not given is absent.
    const args = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, String(v)])) as Record<string, string>;
    const missing = command.options.filter((o) => o.required && (args[o.name] === undefined || args[o.name] === ''));
    if (missing.length) throw new UsageError(`missing ${missing.map((m) => `--${m.name}`).join(', ')}\nusage: ${usageLine(command)}`);
    const { loadConfig } = await import('./load/config');
    const config = loadConfig(env);
    databaseUrl = config.DATABASE_URL;
    redisTarget = config;
    const result = await command.run(args, {
      config,
      db: async () => {
        if (!db) {
          const { createDb } = await import('./load/db');
          db ??= createDb({ databaseUrl: config.DATABASE_URL, poolSize: 2 });
        }
        return db;
      },
      sql: async () => {
        if (!sql) {
          const { createSqlPool } = await import('./load/sql');
          sql ??= createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: 2 });
        }
        return sql;
      },
      redis: async () => {
        if (!redis) {
          const { createRedis } = await import('./load/redis');
          redis ??= createRedis(config, { name: 'cli' });
          redis.on('error', (err: Error) => (redisError = err)).on('ready', () => (redisError = null));
        }
        return redis;
      },
      io: {
        get stdin() {
          return io?.stdin ?? process.stdin;
        },
        get prompt() {
          return io?.prompt ?? process.stderr;
        },
      },
      warn: (message) => warnings.push(`warning: ${message}`),
    });
    const json = (value: unknown) => (pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value));
    // A command can finish with Redis down (key revoke warns that its announcement was lost): say where it looked.
    const redisWarning = redisHint(redisError, config);
    if (redisWarning) warnings.push(`warning: ${redisWarning}`);
    if (result instanceof CliFinding) return { code: result.code, stdout: json(result.output), stderr: stderr(warnings) };
    return { code: 0, stdout: json(result), stderr: stderr(warnings) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const hints = [databaseUrl === undefined ? null : databaseHint(err, databaseUrl), redisTarget ? redisHint(redisError, redisTarget) : null];
    return { code: usage ? 2 : 1, stdout: '', stderr: stderr([...warnings, message, ...hints.filter((h) => h !== null)]) };
  } finally {
    redis?.disconnect();
    await Promise.all([db?.$disconnect(), sql?.end()]);
  }
}

import type { Readable } from 'node:stream';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import type { Config, Mode, RedisClient } from '@cowrie/core';

/** Where a command reads what is not in argv (a password), and where it prompts. */
export interface CliIo {
  /** The password of `user create --password-stdin`, or the prompt's keystrokes when it is a TTY. */
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** Where prompts are written (never stdout, which carries the JSON). */
  prompt: NodeJS.WritableStream;
}

export interface CliContext {
  config: Config;
  /** Prisma, opened on first use, closed when the command ends. Loaded only by the commands that call it. */
  db: () => Promise<PrismaClient>;
  /** Plain pg (@cowrie/db sql.ts), opened on first use, closed when the command ends: no Prisma to start. */
  sql: () => Promise<SqlPool>;
  /** Opened on first use, closed when the command ends. */
  redis: () => Promise<RedisClient>;
  io: CliIo;
  /** A line for stderr (`cowrie: <message>`) beside a successful answer: a deprecation, say. */
  warn: (message: string) => void;
}

export interface CliOption {
  /** `--<name>` */
  name: string;
  /** The value's placeholder in usage (`ID`, `live|test`); absent for a flag, present or absent. */
  value?: string;
  /** One line for `cowrie <command> --help`. */
  help: string;
  required?: boolean;
  /** Still accepted, left out of the usage line, marked in the help. */
  deprecated?: boolean;
}

/**
 * One operator command: the dispatch, the argument parsing and both helps
 * (`cowrie --help`, `cowrie <command> --help`) are made from this entry.
 */
export interface CliCommand {
  /** e.g. `workspace create` */
  name: string;
  /** One line for `cowrie --help`. */
  summary: string;
  /** A few more lines for `cowrie <command> --help`, when the summary does not say it all. */
  details?: string;
  options: CliOption[];
  /**
   * Loads what the command needs when it runs (import() inside), so one
   * command never pays for another's packages at start.
   */
  run: (args: Record<string, string>, ctx: CliContext) => Promise<unknown>;
}

/**
 * A command's answer printed like any other (one JSON object on stdout) but
 * with a non-zero exit code: a check that ran and found something wrong.
 */
export class CliFinding {
  constructor(
    readonly output: unknown,
    readonly code: number,
  ) {}
}

/** An operator mistake: printed as `cowrie: <message>` with exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--mode live|test`, live when absent. */
export function modeArg(args: Record<string, string>): Mode {
  const mode = args.mode ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
  return mode;
}

/**
 * The largest integer the CLI takes: Postgres's `integer` (int4), the type of
 * every id it names (a workspace, a key, a user) and of a rule's position. A
 * larger one would reach the database and fail there, out of range.
 */
const MAX_INT_ARG = 2_147_483_647;

/** `--<name>` as a whole number from 1 to 2147483647; anything else is a usage mistake. */
export function positiveIntArg(args: Record<string, string>, name: string): number {
  const raw = args[name] ?? '';
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > MAX_INT_ARG) {
    throw new UsageError(`--${name} must be a positive integer of at most ${MAX_INT_ARG}, got "${raw}"`);
  }
  return Number(raw);
}

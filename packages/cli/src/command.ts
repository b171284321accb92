import type { PrismaClient } from '@cowrie/db';
import type { Config, Mode, RedisClient } from '@cowrie/core';

export interface CliContext {
  config: Config;
  /** Opened on first use, closed when the command ends. */
  db: () => PrismaClient;
  /** Opened on first use, closed when the command ends. */
  redis: () => RedisClient;
}

export interface CliCommand {
  /** e.g. `workspace create` */
  name: string;
  usage: string;
  /** Option names this command takes; strings (`--name VALUE`) unless listed in `flags`. */
  options: string[];
  /** Options that take no value (`--live-money`): present or absent. */
  flags?: string[];
  required: string[];
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

export function positiveIntArg(args: Record<string, string>, name: string): number {
  const raw = args[name] ?? '';
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}

import pino, { type Logger, type DestinationStream, type LoggerOptions } from 'pino';
import { redactSecrets, redactSecretText } from './log-redaction';

export type { Logger };

type SerializedError = Record<string, unknown> & { code?: unknown; cause?: unknown };

/** Moves an error's `code` (and its causes') to `errorCode`, out of reach of the one-time-code redaction. */
function keepErrorCodes(serialized: SerializedError, depth = 0): SerializedError {
  if (!serialized || typeof serialized !== 'object' || depth > 5) return serialized;
  const { code, cause, ...rest } = serialized;
  const out: SerializedError = { ...rest };
  if (code !== undefined) out.errorCode = code;
  if (cause !== undefined) out.cause = keepErrorCodes(cause as SerializedError, depth + 1);
  return out;
}

/**
 * Errors are logged with their codes (ECONNREFUSED, Postgres's 23505, Prisma's
 * P2002) as `errorCode`: `code` itself is redacted everywhere, since a
 * request's `code` is a one-time code.
 */
const LOG_SERIALIZERS = {
  err: (err: unknown) => redactSecrets(keepErrorCodes(pino.stdSerializers.errWithCause(err as Error) as unknown as SerializedError)),
};

/**
 * How every Cowrie logger treats secrets: a line's fields pass through
 * redactSecrets (by name at any depth, by shape in any string), its message
 * through redactSecretText, errors through LOG_SERIALIZERS. A child's
 * bindings skip pino's formatters: see redactChildBindings.
 */
const LOG_REDACTION = {
  serializers: LOG_SERIALIZERS,
  formatters: {
    log: (fields: Record<string, unknown>) => redactSecrets(fields) as Record<string, unknown>,
  },
  hooks: {
    logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
      method.apply(
        this,
        args.map((arg) => (typeof arg === 'string' ? redactSecretText(arg) : arg)),
      );
    },
  },
} satisfies Pick<LoggerOptions, 'serializers' | 'formatters' | 'hooks'>;

export interface CreateLoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. */
  destination?: DestinationStream;
  /** Human-readable lines (pino-pretty); default: when stdout is a terminal outside production. */
  pretty?: boolean;
}

/**
 * Makes every child of `logger` (at any depth: children inherit it) redact its
 * bindings, which pino serialises once at creation, past `formatters`.
 */
function redactChildBindings(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, options) {
    return child.call(this, redactSecrets(bindings) as typeof bindings, options);
  } as Logger['child'];
  return logger;
}

export function createLogger({ service, level = 'info', destination, pretty }: CreateLoggerOptions): Logger {
  const options = {
    level,
    base: { service },
    ...LOG_REDACTION,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return redactChildBindings(pino(options, destination));
  if (pretty ?? (process.stdout.isTTY && process.env.NODE_ENV !== 'production')) {
    return redactChildBindings(
      pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }),
    );
  }
  return redactChildBindings(pino(options));
}

/** The root logger of one service, as its configuration asks. */
export function createServiceLogger(config: { LOG_LEVEL: string; LOG_FORMAT: 'auto' | 'json' | 'pretty' }, service: string): Logger {
  const pretty = config.LOG_FORMAT === 'auto' ? undefined : config.LOG_FORMAT === 'pretty';
  return createLogger({ service, level: config.LOG_LEVEL, pretty });
}

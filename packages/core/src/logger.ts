import pino, { type Logger, type DestinationStream } from 'pino';

/**
 * Paths pino censors in every log line. Secrets (API keys, one-time codes,
 * passwords, webhook secrets, session tokens) must never reach a log.
 */
export const REDACT_PATHS = [
  'authorization',
  'password',
  'secret',
  'code',
  'key',
  'token',
  'apiKey',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.code',
  '*.key',
  '*.token',
  '*.apiKey',
  '*.encryptedCode',
  'sealedCode',
  '*.sealedCode',
  '*.codeHash',
  '*.codeSalt',
  '*.secretHash',
  '*.passwordHash',
  '*.secretEncrypted',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  'body.password',
  'body.code',
  'body.secret',
  'PAYOUT_PAYSTACK_SECRET_KEY',
  '*.PAYOUT_PAYSTACK_SECRET_KEY',
];

export type { Logger };

type TSerializedError = Record<string, unknown> & { code?: unknown; cause?: unknown };

/** Moves an error's `code` (and its causes') to `errorCode`, out of reach of the one-time-code redaction. */
function keepErrorCodes(serialized: TSerializedError, depth = 0): TSerializedError {
  if (!serialized || typeof serialized !== 'object' || depth > 5) return serialized;
  const { code, cause, ...rest } = serialized;
  const out: TSerializedError = { ...rest };
  if (code !== undefined) out.errorCode = code;
  if (cause !== undefined) out.cause = keepErrorCodes(cause as TSerializedError, depth + 1);
  return out;
}

/**
 * Errors are logged with their codes (ECONNREFUSED, Postgres's 23505, Prisma's
 * P2002) as `errorCode`: `code` itself is redacted everywhere, since a
 * request's `code` is a one-time code.
 */
export const LOG_SERIALIZERS = {
  err: (err: unknown) => keepErrorCodes(pino.stdSerializers.errWithCause(err as Error) as unknown as TSerializedError),
};

export interface CreateLoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. */
  destination?: DestinationStream;
  /** Human-readable lines (pino-pretty); default: when stdout is a terminal outside production. */
  pretty?: boolean;
}

export function createLogger({ service, level = 'info', destination, pretty }: CreateLoggerOptions): Logger {
  const options = {
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: LOG_SERIALIZERS,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return pino(options, destination);
  if (pretty ?? (process.stdout.isTTY && process.env.NODE_ENV !== 'production')) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino(options);
}

/** The root logger of one service, as its configuration asks. */
export function createServiceLogger(config: { LOG_LEVEL: string; LOG_FORMAT: 'auto' | 'json' | 'pretty' }, service: string): Logger {
  const pretty = config.LOG_FORMAT === 'auto' ? undefined : config.LOG_FORMAT === 'pretty';
  return createLogger({ service, level: config.LOG_LEVEL, pretty });
}

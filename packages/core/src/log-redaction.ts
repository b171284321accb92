import { SECRET_CONFIG_KEYS } from './config';

/** What a secret is replaced with in a log line. */
export const REDACTED = '[redacted]';

const normalise = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

/**
 * Field names whose values are secrets wherever they appear, at any depth
 * (compared without case, `-` or `_`): credentials, one-time codes and their
 * sealed or hashed forms, and every secret-bearing configuration variable.
 */
const SECRET_FIELDS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'key',
  'apikey',
  'code',
  'otp',
  'pin',
  'encryptedcode',
  'sealedcode',
  'codehash',
  'codesalt',
  'idempotencykey',
  ...SECRET_CONFIG_KEYS.map(normalise),
]);

/** Field names holding any of these are secrets too (passwordHash, webhookSecret, accessToken, x-api-key…). */
const SECRET_FIELD_PARTS = ['password', 'passwd', 'secret', 'token', 'apikey', 'privatekey', 'credential'];

export function isSecretField(key: string): boolean {
  const name = normalise(key);
  if (SECRET_FIELDS.has(name)) return true;
  // An id names a secret without holding it (apiKeyId, tokenId).
  return !name.endsWith('id') && SECRET_FIELD_PARTS.some((part) => name.includes(part));
}

/**
 * Secrets recognisable by their shape wherever they sit in a text: an API
 * key's secret part (its public lookup id stays, to tell keys apart), a JWT
 * (a dashboard session), an Authorization header's credentials, the
 * password in a URL (DATABASE_URL, REDIS_URL, VERIFY_SMTP_URL) and a webhook
 * secret in Standard Webhooks form (`whsec_…`).
 */
const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/\b(ck_(?:live|test)_[0-9a-f]+_)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, REDACTED],
  [/\b(Bearer|Basic) +[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  [/\bwhsec_[A-Za-z0-9+/]+=*/g, `whsec_${REDACTED}`],
];
const MAY_HOLD_SECRET = /ck_|eyJ|Bearer|Basic|:\/\/|whsec_/;

/** `text` with every secret of a recognisable shape replaced. */
export function redactSecretText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
  return out;
}

const MAX_DEPTH = 12;

/**
 * A copy of a log line's fields with every secret replaced, at any depth:
 * secret-named fields by name, secrets in other strings by shape. Errors are
 * left to the `err` serializer (which calls this on what it makes); dates,
 * buffers and other class instances are left as they are.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecretText(value);
  if (!value || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = field === undefined || field === null || !isSecretField(key) ? redactSecrets(field, depth + 1) : REDACTED;
  }
  return out;
}

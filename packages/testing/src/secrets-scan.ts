import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decryptSecret, SECRET_CONFIG_KEYS, type Config, type RedisClient } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

const run = promisify(execFile);

/**
 * Secrets this test file handed out or typed (passwords, keys), per file:
 * Jest gives every test file its own module registry. The helpers in
 * scenarios.ts remember theirs; a test that makes one another way calls
 * rememberSecret.
 */
const remembered = new Set<string>();

/** Marks `value` as a secret the end-of-file scan must not find stored or logged in plain text. */
export function rememberSecret(value: string): void {
  if (value.length >= 8) remembered.add(value);
}

/**
 * Secrets recognisable by shape alone: a whole API key, a dashboard session
 * token, and a one-time code as a request or a message carries it (a bare
 * 4-8 digit number is everywhere, so codes are only looked for in context).
 */
const SECRET_SHAPES: Array<{ what: string; shape: RegExp }> = [
  { what: 'an API key', shape: /ck_(?:live|test)_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/ },
  { what: 'a session token', shape: /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}/ },
  { what: 'a webhook secret in Standard Webhooks form', shape: /whsec_[A-Za-z0-9+/]{40,}/ },
  { what: 'a one-time code', shape: /"code"\s*:\s*"\d{4,8}"|verification code is \d{4,8}/ },
];

export interface SecretLeak {
  /** Where it was found: `postgres`, `redis <key>` or `log line <n>`. */
  where: string;
  what: string;
  /** The text around it, the secret itself masked. */
  context: string;
}

interface ScanTarget {
  config: Config;
  db: PrismaClient;
  redis: RedisClient;
  /** Redis key patterns of this env (its key prefix and queue prefix). */
  redisPatterns: string[];
  logLines: string[];
}

/**
 * Looks for every secret this test file's world handled, in plain text, in
 * its whole database (pg_dump), every Redis key it owns (each value read by
 * type, job data included) and every line its logger wrote. The secrets: the
 * remembered ones, the secret-bearing configuration variables, each webhook
 * endpoint's secret and the previous one of a roll (unsealed here to be looked
 * for), and the shapes above.
 */
export async function scanForSecrets(target: ScanTarget): Promise<SecretLeak[]> {
  const known = new Map<string, string>();
  for (const value of remembered) known.set(value, 'a password or key the test used');
  for (const name of SECRET_CONFIG_KEYS) {
    const value = target.config[name as keyof Config];
    if (typeof value === 'string' && value.length >= 8) known.set(value, name);
  }
  for (const secret of await webhookSecrets(target.db, target.config.ENCRYPTION_KEY)) known.set(secret, 'a webhook secret');

  const sources: Array<{ where: string; text: string }> = [
    { where: 'postgres', text: await dumpDatabase(target.config.DATABASE_URL) },
    ...(await dumpRedis(target.redis, target.redisPatterns)),
    ...target.logLines.map((text, i) => ({ where: `log line ${i + 1}`, text })),
  ];
  // The text around a find, with every secret in it masked: a report must not leak what it reports.
  const around = (text: string, at: number, length: number) => {
    let context = text.slice(Math.max(0, at - 80), at + length + 80);
    for (const secret of known.keys()) context = context.split(secret).join('***');
    for (const { shape } of SECRET_SHAPES) context = context.replace(new RegExp(shape.source, 'g'), '***');
    return context.replace(/\s+/g, ' ');
  };
  const leaks: SecretLeak[] = [];
  for (const { where, text } of sources) {
    for (const [secret, what] of known) {
      const at = text.indexOf(secret);
      if (at >= 0) leaks.push({ where, what, context: around(text, at, secret.length) });
    }
    for (const { what, shape } of SECRET_SHAPES) {
      const match = shape.exec(text);
      if (match) leaks.push({ where, what, context: around(text, match.index, match[0].length) });
    }
  }
  return leaks;
}

async function webhookSecrets(db: PrismaClient, encryptionKey: string): Promise<string[]> {
  const rows = await db.webhookEndpoint.findMany({ select: { secretEncrypted: true, previousSecretEncrypted: true } });
  const secrets: string[] = [];
  for (const sealed of rows.flatMap((row) => [row.secretEncrypted, row.previousSecretEncrypted])) {
    if (!sealed) continue;
    try {
      secrets.push(decryptSecret(sealed, encryptionKey));
    } catch {
      // A row a test wrote by hand with a placeholder: there is nothing to look for.
    }
  }
  return secrets;
}

async function dumpDatabase(databaseUrl: string): Promise<string> {
  const { stdout } = await run('pg_dump', ['--data-only', '--no-owner', '--no-privileges', '--dbname', databaseUrl], { maxBuffer: 1024 * 1024 * 1024 });
  return stdout;
}

async function dumpRedis(redis: RedisClient, patterns: string[]): Promise<Array<{ where: string; text: string }>> {
  if (!('scanStream' in redis)) return [];
  const keys: string[] = [];
  for (const match of patterns) {
    for await (const batch of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) keys.push(...batch);
  }
  const out: Array<{ where: string; text: string }> = [];
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    const types = (await redis.pipeline(batch.map((key) => ['type', key])).exec()) ?? [];
    const reads = batch.map((key, j) => {
      switch (types[j]?.[1]) {
        case 'string':
          return ['get', key];
        case 'hash':
          return ['hgetall', key];
        case 'list':
          return ['lrange', key, '0', '-1'];
        case 'set':
          return ['smembers', key];
        case 'zset':
          return ['zrange', key, '0', '-1', 'WITHSCORES'];
        case 'stream':
          return ['xrange', key, '-', '+'];
        default:
          return ['exists', key];
      }
    });
    const values = (await redis.pipeline(reads).exec()) ?? [];
    batch.forEach((key, j) => out.push({ where: `redis ${key}`, text: asText(values[j]?.[1]) }));
  }
  return out;
}

/** A Redis reply as raw text: strings as they are, hashes and lists one field per line. */
function asText(reply: unknown): string {
  if (typeof reply === 'string') return reply;
  if (Array.isArray(reply)) return reply.map(asText).join('\n');
  if (reply && typeof reply === 'object')
    return Object.entries(reply)
      .map(([k, v]) => `${k}\n${asText(v)}`)
      .join('\n');
  return String(reply ?? '');
}

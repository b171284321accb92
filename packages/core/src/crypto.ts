import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** One-shot (crypto.hash): no Hash object per call, which an API key's check per request would make. */
export const sha256Hex = (input: string | Buffer): string => hash('sha256', input, 'hex');

/** Compares two strings in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * AES-256-GCM with a 64-hex key. The output `v1.<iv>.<tag>.<ciphertext>` (base64url)
 * carries everything but the key, so it can sit in a job or a database column.
 */
export function encryptSecret(plaintext: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Opens a sealed value with one key; throws when it was sealed under another (GCM's tag does not match) or was altered. */
function openWith(sealed: string, keyHex: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The keys a sealing key replaced (ENCRYPTION_KEY_PREVIOUS), by the key that
 * replaced them: loadConfig records them, so every decryptSecret with the
 * current key also opens what the previous one sealed, while encryptSecret
 * seals only with the current one. Keyed by the current key, so configurations
 * side by side in one process (tests) never lend each other keys.
 *
 * Kept on globalThis under a Symbol.for key, not in this module: the built CLI
 * loads its commands' packages as separate bundles (scripts/build/bundle.mjs
 * --lazy), each with its own copy of this module, and loadConfig (in one) must
 * reach decryptSecret and sealedUnder in the others. Every copy finds the same map.
 */
const PREVIOUS_KEYS = Symbol.for('cowrie.crypto.previousSealingKeys');
const previousKeys: Map<string, readonly string[]> = ((globalThis as { [PREVIOUS_KEYS]?: Map<string, readonly string[]> })[PREVIOUS_KEYS] ??= new Map());

/** Records that `current` replaced `previous` (called by loadConfig for ENCRYPTION_KEY_PREVIOUS). */
export function rememberPreviousSealingKeys(current: string, previous: readonly string[]): void {
  const others = previous.filter((key) => key.toLowerCase() !== current.toLowerCase());
  if (others.length) previousKeys.set(current.toLowerCase(), others);
  else previousKeys.delete(current.toLowerCase());
}

/** Which key opens `sealed`: the current one, a previous one of it, or none. */
export function sealedUnder(sealed: string, keyHex: string): 'current' | 'previous' | 'none' {
  try {
    openWith(sealed, keyHex);
    return 'current';
  } catch {
    for (const previous of previousKeys.get(keyHex.toLowerCase()) ?? []) {
      try {
        openWith(sealed, previous);
        return 'previous';
      } catch {
        // the next one
      }
    }
    return 'none';
  }
}

/** Opens a value sealed with `keyHex` or with a key it replaced (ENCRYPTION_KEY_PREVIOUS). */
export function decryptSecret(sealed: string, keyHex: string): string {
  try {
    return openWith(sealed, keyHex);
  } catch (err) {
    for (const previous of previousKeys.get(keyHex.toLowerCase()) ?? []) {
      try {
        return openWith(sealed, previous);
      } catch {
        // the next one
      }
    }
    throw err;
  }
}

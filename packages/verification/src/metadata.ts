/** Metadata is bounded so one verification cannot store arbitrary payloads. */
export const METADATA_MAX_BYTES = 4096;
export const METADATA_MAX_KEYS = 50;

/**
 * A JSON object as a body parser makes one: a plain object. Not an array, and
 * not a JsonNumberText (`@cowrie/core`), the object the gateway's exact JSON
 * reading makes of a number a double cannot hold (`1e400`, 20 digits): that
 * is a number, refused like `123`.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Why `metadata` is unacceptable, or null when it is fine. */
export function metadataProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object';
  if (Object.keys(value).length > METADATA_MAX_KEYS) return `must have at most ${METADATA_MAX_KEYS} keys`;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_MAX_BYTES) {
    return `must be at most ${METADATA_MAX_BYTES} bytes as JSON`;
  }
  return null;
}

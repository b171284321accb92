/** Metadata is bounded so one verification cannot store arbitrary payloads. */
export const METADATA_MAX_BYTES = 4096;
export const METADATA_MAX_KEYS = 50;

/** Why `metadata` is unacceptable, or null when it is fine. */
export function metadataProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  if (Object.keys(value).length > METADATA_MAX_KEYS) return `must have at most ${METADATA_MAX_KEYS} keys`;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_MAX_BYTES) {
    return `must be at most ${METADATA_MAX_BYTES} bytes as JSON`;
  }
  return null;
}

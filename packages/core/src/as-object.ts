/** A provider's or a row's JSON value read as an object: itself when it is one (not an array), else `{}`. */
export const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Every scope a key can carry. */
export const SCOPES = ['read', 'payouts:write', 'verification:write', 'collections:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function parseScopes(input: string | readonly string[]): Scope[] {
  const list = (typeof input === 'string' ? input.split(',') : [...input]).map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new Error(`at least one scope is required (${SCOPES.join(', ')})`);
  const unknown = list.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown scope ${unknown.join(', ')}; known scopes: ${SCOPES.join(', ')}`);
  return [...new Set(list)] as Scope[];
}

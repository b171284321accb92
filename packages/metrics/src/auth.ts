import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether an Authorization header carries the operator token
 * (`Authorization: Bearer <METRICS_TOKEN>`), compared in constant time.
 */
export function hasOperatorToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), digest(token));
}

import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

const ISSUER = 'cowrie';
const AUDIENCE = 'cowrie-dashboard';

/** Who a session token speaks for. */
export interface SessionClaims {
  userId: number;
  workspaceId: number;
  /** The user's session version when the token was issued: a later sign-out or disable raises it and ends this session. */
  version: number;
}

/** A verified session token. */
export interface Session extends SessionClaims {
  /** The token's own id (`sid`): what a step-up marks (SessionStepUp). Null for tokens issued before sessions had one. */
  sessionId: string | null;
  /** When the token was issued: its sign-in, which counts as a step-up at that time. */
  issuedAt: Date;
  expiresAt: Date;
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * A dashboard session: an HS256 JWT naming the user, the workspace and a
 * random session id. `now` is the sign-in time (tests pass an earlier one for
 * a session signed in long ago).
 */
export async function issueSessionToken(claims: SessionClaims, secret: string, ttlSeconds: number, now = new Date()): Promise<string> {
  return new SignJWT({ wsp: claims.workspaceId, ver: claims.version, sid: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(seconds(now))
    .setExpirationTime(seconds(now) + ttlSeconds)
    .sign(keyOf(secret));
}

/** Returns the session a token carries, or null when it is invalid or expired. */
export async function verifySessionToken(token: string, secret: string): Promise<Session | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    const userId = Number(payload.sub);
    const workspaceId = Number(payload.wsp);
    // Tokens issued before versions existed carry none: version 0, which a sign-out ends.
    const version = payload.ver === undefined ? 0 : Number(payload.ver);
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(workspaceId) || !Number.isSafeInteger(version)) return null;
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return null;
    const sessionId = typeof payload.sid === 'string' && payload.sid.length > 0 ? payload.sid : null;
    return { userId, workspaceId, version, sessionId, issuedAt: new Date(payload.iat * 1000), expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}

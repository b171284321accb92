import { SignJWT, jwtVerify } from 'jose';

const ISSUER = 'cowrie';
const AUDIENCE = 'cowrie-dashboard';

export interface Session {
  userId: number;
  workspaceId: number;
  /** The user's session version when the token was issued: a later sign-out or disable raises it and ends this session. */
  version: number;
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** A dashboard session: an HS256 JWT naming the user and the workspace. */
export async function issueSessionToken(session: Session, secret: string, ttlSeconds: number): Promise<string> {
  return new SignJWT({ wsp: session.workspaceId, ver: session.version })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(session.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
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
    return { userId, workspaceId, version };
  } catch {
    return null;
  }
}

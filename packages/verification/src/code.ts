import { randomBytes, randomInt } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '@cowrie/core';

/** A generated code has 4 digits. */
export const GENERATED_CODE_LENGTH = 4;
/** An operator-supplied code has 4 to 8 digits. */
export const SUPPLIED_CODE_PATTERN = /^\d{4,8}$/;

/** A uniformly random code from the CSPRNG, leading zeros kept. */
export function generateCode(length = GENERATED_CODE_LENGTH): string {
  return String(randomInt(0, 10 ** length)).padStart(length, '0');
}

export const newCodeSalt = (): string => randomBytes(16).toString('hex');

/** The only form of a code that is stored: sha256(salt ":" code), hex. */
export const hashCode = (code: string, salt: string): string => sha256Hex(`${salt}:${code}`);

/**
 * Whether `candidate` is the code behind `hash`. Both sides are fixed-length
 * hex digests, compared in constant time, so the answer's timing says nothing
 * about how close a guess was.
 */
export function codeMatches(candidate: string, salt: string, hash: string): boolean {
  return constantTimeEqual(hashCode(candidate, salt), hash);
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'fck_';
export const OWNER_TOKEN_PREFIX = 'fco_';

/** 32 random bytes are 43 base64url characters without padding. */
const SECRET_BYTES = 32;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new API key: `fck_` + 43 base64url characters (256 random bits). Show it once, store its hash. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/** A new owner token for X-Owner-Token: `fco_` + 43 base64url characters. */
export function generateOwnerToken(): string {
  return OWNER_TOKEN_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/** True when `value` has the shape of an API key (says nothing about whether it is known). */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && SECRET_PATTERN.test(value.slice(API_KEY_PREFIX.length));
}

/** True when `value` has the shape of an owner token. */
export function looksLikeOwnerToken(value: string): boolean {
  return value.startsWith(OWNER_TOKEN_PREFIX) && SECRET_PATTERN.test(value.slice(OWNER_TOKEN_PREFIX.length));
}

/** SHA-256 hex of a secret: what is stored and looked up instead of the secret itself. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Compares two strings in time independent of where they differ. Both are hashed first so the
 * buffers always have equal length and the length of a secret does not leak either.
 */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** The part of a key safe to show in listings and logs: `fck_` and the first 6 secret characters. */
export function keyPrefix(key: string): string {
  const prefixEnd = key.indexOf('_') + 1;
  return key.slice(0, prefixEnd + 6);
}

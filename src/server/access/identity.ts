import { FileconvError, messageFor } from '../../errors/index.js';
import { clientIp } from '../../identity/client-ip.js';
import { hashSecret } from '../../identity/keys.js';
import type { KeyStore } from '../../store/types.js';
import type { IdentityResolver } from '../context.js';
import { socketAddress } from '../http/incoming.js';

/** `Bearer <token>` (scheme case-insensitive, RFC 7235); undefined for no header or another scheme. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = /^\s*bearer(?:\s+(.*))?$/i.exec(authorization ?? '');
  if (!m) return undefined;
  return (m[1] ?? '').trim();
}

/**
 * The caller: a Bearer key is looked up by its SHA-256 on every request (so a revocation counts
 * at once) and refused with one answer whether it is unknown or revoked; without a Bearer key
 * the caller is anonymous, known by the client IP.
 */
export function keyIdentity(keys: KeyStore, trustProxy: boolean): IdentityResolver {
  return async (c) => {
    const ip = clientIp(socketAddress(c), c.req.raw.headers, trustProxy);
    const token = bearerToken(c.req.header('authorization'));
    if (token === undefined) return { kind: 'anonymous', ip };
    const key = token ? await keys.findByHash(hashSecret(token)) : undefined;
    if (!key || key.revokedAt !== undefined)
      throw new FileconvError('INVALID_API_KEY', messageFor('INVALID_API_KEY'));
    await keys.touchKey(key.id, Date.now());
    return { kind: 'key', keyId: key.id, ip };
  };
}

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { generateOwnerToken } from '../../identity/keys.js';

/** A request id: 16 random bytes (128 bits), base64url. */
export function newRequestId(): string {
  return randomBytes(16).toString('base64url');
}

const REQUEST_ID = /^[A-Za-z0-9_-]{22}$/;

export function isRequestId(id: string): boolean {
  return REQUEST_ID.test(id);
}

/** An owner token for the recent-requests list of an anonymous device: `fco_` + 43 base64url chars. */
export function newOwnerToken(): string {
  return generateOwnerToken();
}

export const OWNER_TOKEN = /^fco_[A-Za-z0-9_-]{43}$/;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** How long a download link stays valid. */
export const LINK_TTL_SECONDS = 3600;

/** Signs `/files/<opaque>` links: HMAC-SHA256 over the opaque part and the expiry. */
export class LinkSigner {
  constructor(private readonly secret: Buffer) {}

  private mac(opaque: string, expires: number): Buffer {
    return createHmac('sha256', this.secret).update(`${opaque}\n${expires}`).digest();
  }

  sign(opaque: string, expires: number): string {
    return this.mac(opaque, expires).toString('hex');
  }

  /** Constant-time check of a hex signature. */
  verify(opaque: string, expires: number, signature: string): boolean {
    if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
    return timingSafeEqual(this.mac(opaque, expires), Buffer.from(signature, 'hex'));
  }
}

/** The opaque part of a file link: which artifact of which request. */
export function encodeOpaque(requestId: string, name: string): string {
  return Buffer.from(`${requestId}/${name}`, 'utf8').toString('base64url');
}

export function decodeOpaque(opaque: string): { requestId: string; name: string } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(opaque)) return undefined;
  const text = Buffer.from(opaque, 'base64url').toString('utf8');
  const slash = text.indexOf('/');
  if (slash <= 0) return undefined;
  return { requestId: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** A signed download link of one artifact, valid for LINK_TTL_SECONDS from now. */
export function signedFileLink(
  signer: LinkSigner,
  base: string,
  requestId: string,
  name: string,
): { url: string; expiresAt: number } {
  const expires = Math.floor(Date.now() / 1000) + LINK_TTL_SECONDS;
  const opaque = encodeOpaque(requestId, name);
  return {
    url: `${base}/files/${opaque}?expires=${expires}&signature=${signer.sign(opaque, expires)}`,
    expiresAt: expires * 1000,
  };
}

import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { LimitState } from '../../identity/headers.js';

/** The Hono environment of every route and middleware, and the caller's identity it carries. */

/**
 * Who is calling. Anonymous callers are told apart by their client IP; key holders by their key.
 * Both carry the IP, since the per-minute write limit is per IP whoever calls.
 */
export type Identity = { kind: 'anonymous'; ip: string } | { kind: 'key'; keyId: string; ip: string };

/** Resolves the caller; throws FileconvError INVALID_API_KEY for an unknown or revoked Bearer key. */
export type IdentityResolver = (c: Context<AppEnv>) => Promise<Identity>;

export type AppEnv = {
  Bindings: HttpBindings;
  Variables: {
    identity: Identity;
    ownerHash: string | undefined;
    /** Limit states reported in this answer's RateLimit headers. */
    limitStates: LimitState[] | undefined;
  };
};

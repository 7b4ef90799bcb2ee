import type { Context, MiddlewareHandler } from 'hono';
import type { SubmitMetering } from '../../core/submit-conversion.js';
import { FileconvError } from '../../errors/index.js';
import { checkQuotaLeft, drawQuota, enforceWriteLimit, reportLimits } from '../access/metering.js';
import { newOwnerToken, OWNER_TOKEN, sha256Hex } from '../access/tokens.js';
import { type AppEnv, meteredAs, type ServerContext, type WriteOperation } from '../context.js';

/**
 * What every write (an API call or an MCP tool call) passes first, after the caller is known:
 * counted against the per-minute limit, refused while shutting down, and refused when the quota
 * is already used up, before any file is read.
 */
export async function admitWrite(
  c: Context<AppEnv>,
  ctx: ServerContext,
  operation: WriteOperation,
): Promise<void> {
  await enforceWriteLimit(c, ctx.limits);
  if (ctx.state.draining)
    throw new FileconvError('CONVERT_API_UNAVAILABLE', 'The server is shutting down; retry after a minute.');
  // Which quota a conversion draws on (voice or not) is known only once its meta is read.
  if (operation === 'detect') await checkQuotaLeft(c, ctx.limits, 'file_checks');
  else reportLimits(c, await ctx.limits.standing(c.get('identity'), 'conversions'));
}

/** A conversion is refused while the queue holds as many as the server allows. */
export async function checkQueueRoom(ctx: ServerContext): Promise<void> {
  if ((await ctx.queue.depth()) >= ctx.config.maxQueued) {
    throw new FileconvError('CONVERT_API_UNAVAILABLE', 'The work queue is full; retry after a minute.');
  }
}

/**
 * The API's write routes: admitWrite, then the write is filed under the caller's owner token
 * (issuing one when none was sent).
 */
export function writeGate(ctx: ServerContext, operation: WriteOperation): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await admitWrite(c, ctx, operation);
    fileUnderOwner(c);
    await next();
  };
}

/** The SHA-256 of the X-Owner-Token sent, undefined when none was; refuses one this server never issues. */
export function sentOwnerHash(c: Context<AppEnv>): string | undefined {
  const sent = c.req.header('x-owner-token');
  if (sent === undefined) return undefined;
  if (!OWNER_TOKEN.test(sent))
    throw new FileconvError('INVALID_REQUEST', 'X-Owner-Token must be a token this server issued (fco_...).');
  return sha256Hex(sent);
}

/** Files a write under the caller's owner token, issuing one in the answer's X-Owner-Token when none was sent. */
export function fileUnderOwner(c: Context<AppEnv>): string {
  let hash = sentOwnerHash(c);
  if (hash === undefined) {
    const token = newOwnerToken();
    c.header('X-Owner-Token', token);
    hash = sha256Hex(token);
  }
  c.set('ownerHash', hash);
  return hash;
}

/** The caller's quotas as core draws on them; each decision is reported in the RateLimit headers. */
export function meteringOf(c: Context<AppEnv>, ctx: ServerContext): SubmitMetering {
  const identity = meteredAs(c.get('identity'));
  return {
    identity,
    draw: (kind, units) => drawQuota(c, ctx.limits, kind, units),
    refund: (draw) => ctx.limits.refund(identity, draw),
  };
}

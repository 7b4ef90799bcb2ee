import type { Context } from 'hono';
import { FileconvError } from '../../errors/index.js';
import { type LimitState, limiterState, quotaState, rateLimitHeaders } from '../../identity/headers.js';
import type { QuotaKind } from '../../identity/quota.js';
import { DEFAULT_WRITE_WINDOW_MS } from '../../identity/ratelimit.js';
import type { QuotaDraw, QuotaStore, WriteLimitStore } from '../../store/types.js';
import type { ServeConfig } from '../config.js';
import { type AppEnv, type Identity, type LimitDecision, meteredAs, type WriteLimits } from '../context.js';

/** Per-minute writes per client IP and daily quotas per identity, both counted in the database. */
export class Metering implements WriteLimits {
  constructor(
    private readonly config: Pick<ServeConfig, 'rateLimit' | 'quotas'>,
    private readonly quotas: QuotaStore,
    private readonly writeLimits: WriteLimitStore,
    private readonly writeWindowMs = DEFAULT_WRITE_WINDOW_MS,
  ) {}

  private limitOf(identity: Identity, kind: QuotaKind): number {
    return (identity.kind === 'key' ? this.config.quotas.key : this.config.quotas.anonymous)[kind];
  }

  async admitWrite(identity: Identity) {
    if (this.config.rateLimit <= 0) return undefined;
    // The IP's metering string, so an IPv6 client cannot dodge the limit by rotating through its /64.
    const result = await this.writeLimits.admit(
      meteredAs({ kind: 'anonymous', ip: identity.ip }),
      this.config.rateLimit,
      this.writeWindowMs,
      Date.now(),
    );
    return {
      allowed: result.allowed,
      state: limiterState('writes', result),
      retryAfterSeconds: result.retryAfterSeconds,
    };
  }

  async draw(identity: Identity, kind: QuotaKind, units = 1): Promise<LimitDecision & { draw: QuotaDraw }> {
    const limit = this.limitOf(identity, kind);
    const metered = meteredAs(identity);
    let result = await this.quotas.consume(metered, kind, limit, Date.now(), units);
    // Refused for more units than are left, the headers still say what is left.
    if (!result.allowed && units > 1)
      result = { ...(await this.quotas.peek(metered, kind, limit)), allowed: false };
    return {
      allowed: result.allowed,
      state: quotaState(kind, result),
      draw: { kind, day: result.day, ...(units > 1 ? { units } : {}) },
    };
  }

  async standing(identity: Identity, kind: QuotaKind): Promise<LimitState> {
    return quotaState(kind, await this.quotas.peek(meteredAs(identity), kind, this.limitOf(identity, kind)));
  }

  refund(identity: string, draw: QuotaDraw): Promise<boolean> {
    return this.quotas.refund(identity, draw);
  }

  charge(identity: string, draw: QuotaDraw): Promise<void> {
    return this.quotas.charge(identity, draw);
  }
}

/** Adds (or replaces, by name) limit states and rewrites this answer's RateLimit headers. */
export function reportLimits(c: Context<AppEnv>, ...states: LimitState[]): void {
  const all = (c.get('limitStates') ?? []).filter((s) => !states.some((n) => n.name === s.name));
  all.push(...states);
  c.set('limitStates', all);
  for (const [name, value] of Object.entries(rateLimitHeaders(all))) c.header(name, value);
}

/** Counts this write against the per-minute limit; throws RATE_LIMITED (reset_at, Retry-After). */
export async function enforceWriteLimit(c: Context<AppEnv>, limits: WriteLimits): Promise<void> {
  const decision = await limits.admitWrite(c.get('identity'));
  if (!decision) return;
  reportLimits(c, decision.state);
  if (decision.allowed) return;
  c.header('Retry-After', String(decision.retryAfterSeconds));
  throw new FileconvError(
    'RATE_LIMITED',
    `More than ${decision.state.limit} writes in a minute from this address; retry after ${decision.retryAfterSeconds} s.`,
    { extra: { reset_at: new Date(decision.state.resetAt).toISOString() } },
  );
}

function quotaExceeded(kind: QuotaKind, state: LimitState, units = 1): FileconvError {
  const what = { conversions: 'conversions', voice: 'voice conversions', file_checks: 'file checks' }[kind];
  return new FileconvError(
    'QUOTA_EXCEEDED',
    units > 1 && state.remaining > 0
      ? `This request needs ${units} units of the daily quota of ${state.limit} ${what} (one per input) and ${state.remaining} are left; it resets at midnight UTC.`
      : `The daily quota of ${state.limit} ${what} is used up; it resets at midnight UTC.`,
    { extra: { reset_at: new Date(state.resetAt).toISOString() } },
  );
}

/** Refuses early (before reading an upload) when the quota is already used up; counts nothing. */
export async function checkQuotaLeft(
  c: Context<AppEnv>,
  limits: WriteLimits,
  kind: QuotaKind,
): Promise<void> {
  const state = await limits.standing(c.get('identity'), kind);
  reportLimits(c, state);
  if (state.remaining <= 0) throw quotaExceeded(kind, state);
}

/** Takes `units` of the quota for accepted work; throws QUOTA_EXCEEDED with reset_at. */
export async function drawQuota(
  c: Context<AppEnv>,
  limits: WriteLimits,
  kind: QuotaKind,
  units = 1,
): Promise<QuotaDraw> {
  const decision = await limits.draw(c.get('identity'), kind, units);
  reportLimits(c, decision.state);
  if (!decision.allowed) throw quotaExceeded(kind, decision.state, units);
  return decision.draw;
}

import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { nextUtcMidnight, type QuotaKind, type QuotaResult, utcDay } from '../../identity/quota.js';
import { type RateLimitResult, windowDecision } from '../../identity/ratelimit.js';
import type {
  ApiKeyRecord,
  KeyStore,
  QuotaDraw,
  QuotaStore,
  SecretStore,
  WriteLimitStore,
} from '../types.js';
import type { SqlDialect } from './dialect.js';
import { type Schema, toKey } from './schema.js';

type Db = Kysely<Schema>;

/**
 * API keys. Every lookup reads the table, so a key revoked by `fileconv keys revoke` (another
 * process, another node) is refused by a running server on its next request.
 */
export class SqlKeyStore implements KeyStore {
  constructor(
    private readonly db: Db,
    private readonly d: SqlDialect,
  ) {}

  async createKey(key: { id: string; hash: string; prefix: string; label?: string; createdAt: number }) {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        hash: key.hash,
        prefix: key.prefix,
        label: key.label ?? null,
        created_at: key.createdAt,
      })
      .execute();
  }

  private readonly columns = ['id', 'prefix', 'label', 'created_at', 'last_used_at', 'revoked_at'] as const;

  async listKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(this.columns)
      .orderBy('created_at')
      .orderBy(sql.ref(this.d.insertionOrder))
      .execute();
    return rows.map(toKey);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(this.columns)
      .where('hash', '=', hash)
      .executeTakeFirst();
    return row && toKey(row);
  }

  async revokeKey(id: string, now: number): Promise<boolean> {
    // COALESCE keeps the first revocation time; the row count says whether the key exists.
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
      .where('id', '=', id)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async touchKey(id: string, now: number): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
  }
}

/** A quota's answer when `used` units of `limit` are counted today. */
function standing(allowed: boolean, used: number, limit: number, now: number): QuotaResult {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - used),
    resetAt: nextUtcMidnight(now),
    day: utcDay(now),
  };
}

/**
 * Daily quotas. consume is one INSERT .. ON CONFLICT DO UPDATE .. WHERE used < limit: the
 * database runs it against the newest count (SQLite: one writer at a time; PostgreSQL: the row
 * lock it takes queues concurrent consumers on any node), so the last unit is given out once.
 */
export class SqlQuotaStore implements QuotaStore {
  constructor(private readonly db: Db) {}

  async consume(
    identity: string,
    kind: QuotaKind,
    limit: number,
    now: number = Date.now(),
    units = 1,
  ): Promise<QuotaResult> {
    if (!Number.isSafeInteger(units) || units < 1)
      throw new Error(`quota units must be a whole number, got ${units}`);
    const day = utcDay(now);
    const taken = await this.db
      .insertInto('quota_usage')
      .columns(['identity', 'kind', 'day', 'used'])
      .expression(
        // The WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
        this.db
          .selectNoFrom((eb) => [
            eb.val(identity).as('identity'),
            eb.val(kind).as('kind'),
            eb.val(day).as('day'),
            // A literal: PostgreSQL types a parameter in INSERT .. SELECT as text.
            sql.lit(units).as('used'),
          ])
          .where(sql<boolean>`${limit - units} >= 0`),
      )
      .onConflict((oc) =>
        oc
          .columns(['identity', 'kind', 'day'])
          .doUpdateSet((eb) => ({ used: eb('quota_usage.used', '+', units) }))
          .where((eb) => eb(eb('quota_usage.used', '+', units), '<=', limit)),
      )
      .returning('used')
      .executeTakeFirst();
    // Refused means the count is at (or past) the limit: nothing remains.
    return standing(taken !== undefined, taken ? taken.used : limit, limit, now);
  }

  async peek(
    identity: string,
    kind: QuotaKind,
    limit: number,
    now: number = Date.now(),
  ): Promise<QuotaResult> {
    const row = await this.db
      .selectFrom('quota_usage')
      .select('used')
      .where('identity', '=', identity)
      .where('kind', '=', kind)
      .where('day', '=', utcDay(now))
      .executeTakeFirst();
    const used = row?.used ?? 0;
    return standing(used < limit, used, limit, now);
  }

  async refund(identity: string, draw: QuotaDraw): Promise<boolean> {
    const units = draw.units ?? 1;
    const { numUpdatedRows } = await this.db
      .updateTable('quota_usage')
      .set({ used: sql<number>`case when used > ${units} then used - ${units} else 0 end` })
      .where('identity', '=', identity)
      .where('kind', '=', draw.kind)
      .where('day', '=', draw.day)
      .where('used', '>', 0)
      .executeTakeFirst();
    return numUpdatedRows === 1n;
  }

  async charge(identity: string, draw: QuotaDraw): Promise<void> {
    const units = draw.units ?? 1;
    await this.db
      .insertInto('quota_usage')
      .values({ identity, kind: draw.kind, day: draw.day, used: units })
      .onConflict((oc) =>
        oc
          .columns(['identity', 'kind', 'day'])
          .doUpdateSet((eb) => ({ used: eb('quota_usage.used', '+', units) })),
      )
      .execute();
  }
}

/**
 * The write limit's sliding-window log. Counting and recording for one key run in a transaction
 * holding that key's lock (dialect.ts), so processes and nodes admitting at once never pass the
 * limit. Expired admissions are pruned by a separate statement, at most once a window per
 * process, which takes no lock an admission waits for.
 */
export class SqlWriteLimitStore implements WriteLimitStore {
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly d: SqlDialect,
  ) {}

  async admit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    const since = now - windowMs;
    const result = await this.d.transaction(this.db, async (trx) => {
      await this.d.lockKey(trx, `write-limit:${key}`);
      const seen = await trx
        .selectFrom('write_admissions')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
        .where('key', '=', key)
        .where('at', '>', since)
        .executeTakeFirstOrThrow();
      const n = Number(seen.n);
      const allowed = n < limit;
      if (allowed) await trx.insertInto('write_admissions').values({ key, at: now }).execute();
      const oldest = seen.oldest ?? (allowed ? now : undefined);
      return windowDecision(allowed, n + (allowed ? 1 : 0), oldest, limit, windowMs, now);
    });
    if (now - this.prunedAt >= windowMs) {
      this.prunedAt = now;
      await this.db
        .deleteFrom('write_admissions')
        .where('at', '<=', since)
        .execute()
        .catch(() => {});
    }
    return result;
  }
}

/** Shared secrets: the first insert anywhere wins, every later read sees it. */
export class SqlSecretStore implements SecretStore {
  constructor(private readonly db: Db) {}

  async secret(name: string, initial?: Buffer): Promise<Buffer> {
    await this.db
      .insertInto('secrets')
      .values({ name, value: initial ?? randomBytes(32), created_at: Date.now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}

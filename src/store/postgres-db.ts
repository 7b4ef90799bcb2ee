import pg from 'pg';
import { FileconvError } from '../errors/index.js';
import { PG_MIGRATIONS } from './postgres-schema.js';

/**
 * BIGINT (epoch milliseconds, counts) as JavaScript numbers: every value the stores keep in one
 * is far below 2^53.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** A connection pool on `url` whose BIGINTs read as numbers. */
export function createPool(url: string, max = 10): pg.Pool {
  // A database that does not answer fails a query after 10 s instead of holding it forever.
  const pool = new pg.Pool({ connectionString: url, max, types, connectionTimeoutMillis: 10_000 });
  // An idle connection the server drops (restart, failover) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Runs `fn` in a transaction on one connection; rolls back when it throws. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Advisory lock key of the schema migrations (any constant shared by every fileconv node). */
const MIGRATION_LOCK = 0x66696c65;

/**
 * Brings the schema up to date. Nodes starting at once serialise on an advisory lock held for the
 * transaction, so each migration runs exactly once and a late node sees the finished schema.
 */
export async function migrate(pool: pg.Pool): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS fileconv_schema (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM fileconv_schema');
    if (rows.length === 0) await client.query('INSERT INTO fileconv_schema (version) VALUES (0)');
    const done = rows[0]?.version ?? 0;
    // A schema newer than this code (a node upgraded first) is left as it is.
    if (done >= PG_MIGRATIONS.length) return;
    for (const migration of PG_MIGRATIONS.slice(done)) await client.query(migration);
    await client.query('UPDATE fileconv_schema SET version = $1', [PG_MIGRATIONS.length]);
  });
}

/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured database URL';
  }
}

/** What a node says when it cannot open the database at start-up: where, and the driver's reason. */
export function databaseUnavailable(url: string, err: unknown): FileconvError {
  const reason = err instanceof Error ? err.message : String(err);
  return new FileconvError(
    'CONVERT_API_UNAVAILABLE',
    `cannot open the PostgreSQL database at ${redactedUrl(url)}: ${reason}`,
    {
      cause: err,
    },
  );
}

import pg from 'pg';
import { FileconvError } from '../errors/index.js';

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

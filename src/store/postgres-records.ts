import { PostgresRequestStore } from './postgres.js';
import { createPool, databaseUnavailable, migrate } from './postgres-db.js';
import {
  PostgresKeyStore,
  PostgresQuotaStore,
  PostgresSecretStore,
  PostgresWriteLimitStore,
} from './postgres-identity.js';
import type { Records } from './types.js';

/** The record stores on a PostgreSQL database (`postgres://` URL); migrates the schema first. */
export async function openPostgresRecords(url: string): Promise<Records> {
  const pool = createPool(url);
  try {
    await migrate(pool);
  } catch (err) {
    await pool.end();
    throw databaseUnavailable(url, err);
  }
  return {
    requests: new PostgresRequestStore(pool),
    keys: new PostgresKeyStore(pool),
    quotas: new PostgresQuotaStore(pool),
    writeLimits: new PostgresWriteLimitStore(pool),
    secrets: new PostgresSecretStore(pool),
    close: () => pool.end(),
  };
}

import { createPool, databaseUnavailable } from './postgres-db.js';
import { migratePostgres, postgresDialect, postgresKysely } from './sql/dialect.js';
import { sqlRecords } from './sql/records.js';
import type { Records } from './types.js';

/** The record stores on a PostgreSQL database (`postgres://` URL); migrates the schema first. */
export async function openPostgresRecords(url: string): Promise<Records> {
  const pool = createPool(url);
  const db = postgresKysely(pool);
  try {
    await migratePostgres(db);
  } catch (err) {
    await db.destroy();
    throw databaseUnavailable(url, err);
  }
  return sqlRecords(db, postgresDialect, () => db.destroy());
}

import { join } from 'node:path';
import { sqliteDialect, sqliteKysely } from './sql/dialect.js';
import { sqlRecords } from './sql/records.js';
import { DATABASE_FILE, openDatabase } from './sqlite-db.js';
import type { Records } from './types.js';

/** The record stores on one SQLite file (the embedded default: `fileconv.db` in the data directory). */
export function openSqliteRecords(file: string): Records {
  const raw = openDatabase(file);
  let db: ReturnType<typeof sqliteKysely>;
  try {
    db = sqliteKysely(raw);
  } catch (err) {
    raw.close();
    throw err;
  }
  return sqlRecords(db, sqliteDialect, () => db.destroy());
}

/** The record stores of a data directory. */
export function openDataDirRecords(dataDir: string): Records {
  return openSqliteRecords(join(dataDir, DATABASE_FILE));
}

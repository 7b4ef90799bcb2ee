import { join } from 'node:path';
import { SqliteRequestStore } from './sqlite.js';
import { DATABASE_FILE, openDatabase } from './sqlite-db.js';
import {
  SqliteKeyStore,
  SqliteQuotaStore,
  SqliteSecretStore,
  SqliteWriteLimitStore,
} from './sqlite-identity.js';
import type { Records } from './types.js';

/** The record stores on one SQLite file (the embedded default: `fileconv.db` in the data directory). */
export function openSqliteRecords(file: string): Records {
  const db = openDatabase(file);
  return {
    requests: new SqliteRequestStore(db),
    keys: new SqliteKeyStore(db),
    quotas: new SqliteQuotaStore(db),
    writeLimits: new SqliteWriteLimitStore(db),
    secrets: new SqliteSecretStore(db),
    async close() {
      if (db.open) db.close();
    },
  };
}

/** The record stores of a data directory. */
export function openDataDirRecords(dataDir: string): Records {
  return openSqliteRecords(join(dataDir, DATABASE_FILE));
}

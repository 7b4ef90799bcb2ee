import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';

/** The metadata database's file name in the data directory (requests, API keys, quotas, secrets). */
export const DATABASE_FILE = 'fileconv.db';

/**
 * Opens the metadata database (WAL, busy timeout). The file holds the shared secrets, so it is
 * readable by its owner only (SQLite gives its -wal and -shm files the same mode).
 */
export function openDatabase(file: string): Database.Database {
  const db = new Database(file);
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  return db;
}

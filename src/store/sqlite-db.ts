import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './sqlite-schema.js';

/** The metadata database's file name in the data directory (requests, API keys, quotas, secrets). */
export const DATABASE_FILE = 'fileconv.db';

/**
 * Opens the metadata database (WAL, busy timeout) and runs pending migrations. The file holds the
 * shared secrets, so it is readable by its owner only (SQLite gives its -wal and -shm files the
 * same mode).
 */
export function openDatabase(file: string): Database.Database {
  const db = new Database(file);
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}

/**
 * Prepares each SQL text once per database: preparing is a large share of a status read's cost,
 * and status reads are the hottest path of the server.
 */
export function statements(db: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}

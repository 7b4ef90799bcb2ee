import { setTimeout } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import {
  CompiledQuery,
  type CreateTableBuilder,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PostgresDialect,
  type QueryResult,
  type RawBuilder,
  type SelectQueryBuilder,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import type pg from 'pg';
import { pendingMigrations, type SchemaDialect } from './migrations.js';
import type { Schema } from './schema.js';

/**
 * Everything the records store does differently on SQLite and on PostgreSQL, and nothing else:
 * the store (requests.ts, identity.ts) and the migrations are written once against this.
 *
 * - Insertion order: SQLite's rowid; PostgreSQL has none, so its tables that need one have `seq`.
 * - Raw bytes: BLOB / BYTEA; an auto-numbered key: INTEGER PRIMARY KEY AUTOINCREMENT / BIGSERIAL.
 * - Locking: SQLite has one writer at a time, so every transaction here starts IMMEDIATE (it takes
 *   the write lock before its first read, and a read-then-write never has to be retried);
 *   PostgreSQL locks rows (FOR UPDATE, SKIP LOCKED where another node may take the next one) and
 *   serialises writers of one key across nodes with advisory locks.
 * - Where the migration count is kept: `PRAGMA user_version` / the `fileconv_schema` table, under
 *   the write lock / an advisory lock, so processes starting at once migrate once.
 * Upserts (ON CONFLICT), RETURNING and aggregate FILTER are the same on both and need nothing here.
 * JSON is kept as text on both (see schema.ts); the one place a JSON function is read is a list
 *   given as one parameter (`notInJsonList`), since a query compiled once cannot vary its `IN (...)`.
 */
export interface SqlDialect extends SchemaDialect {
  readonly name: 'sqlite' | 'postgres';
  /** The column that orders a table's rows as they were inserted. */
  readonly insertionOrder: 'rowid' | 'seq';
  /** Locks what a read inside a transaction returns until it ends; `skipLocked`: skips rows another holds. */
  forUpdate<Q extends SelectQueryBuilder<Schema, keyof Schema, object>>(query: Q, skipLocked?: boolean): Q;
  /** Inside a transaction: waits until no other transaction, on any node, holds `key`; holds it until the end. */
  lockKey(trx: Kysely<Schema>, key: string): Promise<void>;
  /** Runs `fn` in a transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(db: Kysely<Schema>, fn: (trx: Kysely<Schema>) => Promise<T>): Promise<T>;
  /**
   * Runs a compiled query at once, without a turn of the event loop, where the driver can
   * (SQLite, whose calls are synchronous, when nothing else holds the connection); undefined: run
   * it the usual way.
   */
  runNow(db: Kysely<Schema>, query: CompiledQuery): QueryResult<unknown> | undefined;
  /** `value` (NULL read as '') is none of the strings of `list`, a JSON array given as one parameter. */
  notInJsonList(value: RawBuilder<unknown>, list: unknown): RawBuilder<boolean>;
}

// biome-ignore lint/suspicious/noExplicitAny: schema builders of any table
type TableBuilder = CreateTableBuilder<any, any>;

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  insertionOrder: 'rowid',
  bytes: 'blob',
  insertionOrderColumn: (t) => t,
  inInsertionOrder: (columns) => columns,
  serialKey:
    (name) =>
    <T extends TableBuilder>(t: T) =>
      t.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement()) as T,
  forUpdate: (query) => query,
  lockKey: async () => {},
  // The connection's own transaction, on the builder that runs on the connection as it is held.
  transaction: async (db, fn) => {
    const { driver, held } = sqliteDrivers.get(db)!;
    const connection = await driver.acquireConnection();
    try {
      await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
      try {
        const result = await fn(held);
        await connection.executeQuery(CompiledQuery.raw('COMMIT'));
        return result;
      } catch (err) {
        await connection.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => {});
        throw err;
      }
    } finally {
      await driver.releaseConnection();
    }
  },
  notInJsonList: (value, list) =>
    sql<boolean>`coalesce(${value}, '') NOT IN (SELECT value FROM json_each(${list}))`,
  runNow: (db, query) => {
    const target = sqliteDrivers.get(db);
    // Outside a transaction, only while no transaction holds the connection: a statement run now
    // would otherwise join it.
    if (!target || (target.held !== db && target.driver.held)) return undefined;
    return target.driver.connection.runNow(query);
  },
};

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  insertionOrder: 'seq',
  bytes: 'bytea',
  insertionOrderColumn: <T extends TableBuilder>(t: T) =>
    t.addColumn('seq', 'bigserial', (c) => c.notNull()) as T,
  inInsertionOrder: (columns) => [...columns, 'seq'],
  serialKey:
    (name) =>
    <T extends TableBuilder>(t: T) =>
      t.addColumn(name, 'bigserial', (c) => c.primaryKey()) as T,
  forUpdate: (query, skipLocked) =>
    (skipLocked ? query.forUpdate().skipLocked() : query.forUpdate()) as typeof query,
  lockKey: async (trx, key) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`fileconv.${key}`}, 0))`.execute(trx);
  },
  transaction: (db, fn) => db.transaction().execute(fn),
  runNow: () => undefined,
  notInJsonList: (value, list) =>
    sql<boolean>`coalesce(${value}, '') <> ALL(ARRAY(SELECT json_array_elements_text(${list}::json)))`,
};

/** How long a SQLite statement waits for another connection's write lock before failing. */
const SQLITE_BUSY_MS = 5_000;

/**
 * One better-sqlite3 connection for the query builder. Each SQL text is prepared once (preparing
 * is a large share of a status read's cost, and status reads are the server's hottest path). A
 * statement that finds the database locked by another connection waits for it without blocking
 * the event loop, whose callbacks may be what holds that lock (two connections in one process).
 */
class SqliteConnection implements DatabaseConnection {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + SQLITE_BUSY_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      const result = this.runNow<R>(query);
      if (result) return result;
      if (Date.now() > deadline)
        throw new Error(`the SQLite database stayed locked for ${SQLITE_BUSY_MS} ms`);
      await setTimeout(wait);
    }
  }

  /** Runs the query; undefined when another connection holds the lock it needs. */
  runNow<R>(query: CompiledQuery): QueryResult<R> | undefined {
    let statement = this.prepared.get(query.sql);
    if (!statement) {
      statement = this.db.prepare(query.sql);
      this.prepared.set(query.sql, statement);
    }
    try {
      if (statement.reader) return { rows: statement.all(query.parameters) as R[] };
      return { rows: [], numAffectedRows: BigInt(statement.run(query.parameters).changes) };
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined;
      throw err;
    }
  }

  // biome-ignore lint/correctness/useYield: the store never streams
  async *streamQuery(): AsyncIterableIterator<never> {
    throw new Error('streaming is not supported');
  }
}

/**
 * The driver of each SQLite query builder, and a second builder on its connection that takes no
 * turn (`held`): the one transactions run on, while they hold the connection.
 */
const sqliteDrivers = new WeakMap<Kysely<Schema>, { driver: SqliteConnectionDriver; held: Kysely<Schema> }>();

/** The driver of that connection: one user at a time, and transactions that begin IMMEDIATE (see above). */
class SqliteConnectionDriver implements Driver {
  readonly connection: SqliteConnection;
  held = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly db: Database.Database) {
    this.connection = new SqliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.held = true;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async destroy(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/**
 * The query builder on a better-sqlite3 database, migrated. From then on, waiting for a lock is the
 * connection's (above), not SQLite's busy handler, which would block the whole process.
 */
export function sqliteKysely(db: Database.Database): Kysely<Schema> {
  const driver = new SqliteConnectionDriver(db);
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
  const k = new Kysely<Schema>({ dialect });
  const held = new Kysely<Schema>({
    dialect: {
      ...dialect,
      createDriver: () => ({
        ...driver,
        init: async () => {},
        acquireConnection: async () => driver.connection,
        releaseConnection: async () => {},
        beginTransaction: () => Promise.reject(new Error('already in a transaction')),
        commitTransaction: async () => {},
        rollbackTransaction: async () => {},
        destroy: async () => {},
      }),
    },
  });
  sqliteDrivers.set(k, { driver, held });
  sqliteDrivers.set(held, { driver, held });
  migrateSqlite(db, k);
  db.pragma('busy_timeout = 0');
  return k;
}

/** The query builder on a PostgreSQL pool (see postgres-db.ts for how BIGINTs read). */
export function postgresKysely(pool: pg.Pool): Kysely<Schema> {
  return new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
}

/** The `user_version` the earlier SQLite migrations reached with the schema of the first step. */
const SQLITE_LEGACY_VERSION = 10;
/** The `fileconv_schema.version` the earlier PostgreSQL migrations reached with that schema. */
const POSTGRES_LEGACY_VERSION = 3;

/** The migration count a database up to date with this code records. */
export function schemaVersion(d: SqlDialect): number {
  const legacy = d.name === 'sqlite' ? SQLITE_LEGACY_VERSION : POSTGRES_LEGACY_VERSION;
  return pendingMigrations(0, legacy).version;
}

/**
 * Brings a SQLite database up to date, synchronously (it is opened before anything awaits): the
 * count is read and the steps run in one IMMEDIATE transaction, so processes opening a new file
 * at once migrate it once.
 */
function migrateSqlite(db: Database.Database, k: Kysely<Schema>): void {
  db.transaction(() => {
    const recorded = db.pragma('user_version', { simple: true }) as number;
    const { steps, version } = pendingMigrations(recorded, SQLITE_LEGACY_VERSION);
    if (steps.length === 0) return;
    for (const step of steps)
      for (const query of step(k, sqliteDialect)) {
        const compiled = query.compile();
        db.prepare(compiled.sql).run(...compiled.parameters);
      }
    db.pragma(`user_version = ${version}`);
  }).immediate();
}

/** Advisory lock key of the schema migrations (any constant shared by every fileconv node). */
const MIGRATION_LOCK = 0x66696c65;

/**
 * Brings a PostgreSQL database up to date. Nodes starting at once serialise on an advisory lock
 * held for the transaction, so each step runs exactly once and a late node sees the finished schema.
 */
export async function migratePostgres(k: Kysely<Schema>): Promise<void> {
  await k.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS fileconv_schema (version INTEGER NOT NULL)`.execute(trx);
    const { rows } = await sql<{ version: number }>`SELECT version FROM fileconv_schema`.execute(trx);
    if (rows.length === 0) await sql`INSERT INTO fileconv_schema (version) VALUES (0)`.execute(trx);
    const { steps, version } = pendingMigrations(rows[0]?.version ?? 0, POSTGRES_LEGACY_VERSION);
    if (steps.length === 0) return;
    for (const step of steps)
      for (const query of step(trx, postgresDialect)) await trx.executeQuery(query.compile());
    await sql`UPDATE fileconv_schema SET version = ${version}`.execute(trx);
  });
}

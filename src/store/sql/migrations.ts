import { type Compilable, type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { FileconvError } from '../../errors/index.js';

// biome-ignore lint/suspicious/noExplicitAny: schema builders of any table
type TableBuilder = CreateTableBuilder<any, any>;

/** What the schema needs to know of the database it is made in (dialect.ts has both). */
export interface SchemaDialect {
  /** Column type of raw bytes. */
  readonly bytes: 'blob' | 'bytea';
  /** Adds the column that keeps insertion order, where the database has none of its own. */
  insertionOrderColumn<T extends TableBuilder>(table: T): T;
  /** An index's columns, ending with the insertion order where that is a column. */
  inInsertionOrder(columns: string[]): string[];
  /** Adds an auto-numbered primary key called `name`. */
  serialKey(name: string): <T extends TableBuilder>(table: T) => T;
}

/**
 * Schema changes of the records database, in order, for both SQLite and PostgreSQL: each returns
 * its statements, built once for whichever database runs them; where the two differ the dialect
 * says how (dialect.ts). The dialect's runner records how many have run. Never edit a shipped one:
 * add a step at the end.
 */
// biome-ignore lint/suspicious/noExplicitAny: the schema is what the steps make
export type Migration = (db: Kysely<any>, d: SchemaDialect) => Compilable[];

export const MIGRATIONS: readonly Migration[] = [
  // The schema as the earlier per-database migrations left it: a database they made counts this
  // step as done (dialect.ts, legacyVersion).
  (db, d) => [
    db.schema
      .createTable('requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .$call(d.insertionOrderColumn)
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('conversion', 'text')
      .addColumn('from_format', 'text')
      .addColumn('to_format', 'text')
      .addColumn('options', 'text')
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('input_key', 'text')
      .addColumn('owner_hash', 'text')
      .addColumn('identity', 'text', (c) => c.notNull())
      .addColumn('queue', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('progress', 'text', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('report', 'text')
      .addColumn('quota_kind', 'text')
      .addColumn('quota_day', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('inputs', 'text')
      .addColumn('claim_token', 'text')
      .addColumn('heartbeat_at', 'bigint'),
    db.schema
      .createIndex('requests_queue')
      .on('requests')
      .columns(d.inInsertionOrder(['queue', 'created_at'])),
    db.schema.createIndex('requests_owner').on('requests').columns(['owner_hash', 'created_at']),
    // Only indexes the queries need: each one more is written on every claim and finish (the
    // stale-claim sweep finds `working` rows through requests_queue).
    db.schema.createIndex('requests_kind').on('requests').columns(['kind', 'created_at']),
    db.schema
      .createIndex('requests_input')
      .on('requests')
      .column('input_key')
      .where(sql.ref('input_key'), 'is not', null),
    db.schema
      .createTable('artifacts')
      .addColumn('request_id', 'text', (c) => c.notNull().references('requests.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('mime', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('blob_key', 'text', (c) => c.notNull())
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('expired', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('checks', 'text')
      .addPrimaryKeyConstraint('artifacts_pkey', ['request_id', 'name']),
    db.schema.createIndex('artifacts_expiry').on('artifacts').columns(['expired', 'expires_at']),
    db.schema
      .createTable('events')
      .$call(d.serialKey('seq'))
      .addColumn('request_id', 'text', (c) => c.notNull().references('requests.id').onDelete('cascade'))
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull()),
    db.schema.createIndex('events_request').on('events').columns(['request_id', 'seq']),
    db.schema
      .createTable('webhooks')
      .addColumn('request_id', 'text', (c) => c.primaryKey().references('requests.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text', (c) => c.notNull()),
    db.schema
      .createTable('health')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('checked_at', 'bigint', (c) => c.notNull()),
    // API keys: only the SHA-256 hex of a key is kept; the prefix tells keys apart in listings.
    db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .$call(d.insertionOrderColumn)
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint'),
    db.schema
      .createTable('quota_usage')
      .addColumn('identity', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) =>
        c.notNull().check(sql`kind IN ('conversions', 'voice', 'file_checks')`),
      )
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0).check(sql`used >= 0`))
      .addPrimaryKeyConstraint('quota_usage_pkey', ['identity', 'kind', 'day']),
    db.schema.createIndex('quota_usage_day').on('quota_usage').column('day'),
    // The per-minute write limit's sliding-window log, shared by every process on the database.
    db.schema
      .createTable('write_admissions')
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull()),
    db.schema.createIndex('write_admissions_key').on('write_admissions').columns(['key', 'at']),
    db.schema.createIndex('write_admissions_at').on('write_admissions').column('at'),
    // Secrets every process shares (link signing, webhook signing).
    db.schema
      .createTable('secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', d.bytes, (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull()),
  ],
  // The queue lane of a conversion (the engine of its main work): claims pass over full lanes.
  (db) => [db.schema.alterTable('requests').addColumn('lane', 'text')],
  // Passwords are no longer sealed under a key kept in this database (src/core/option-secrets.ts):
  // the old key goes, and with it whatever ended requests still held sealed under it.
  (db) => [
    db.deleteFrom('secrets').where('name', '=', 'options'),
    db
      .updateTable('requests')
      .set({ options: null })
      .where('status', '<>', 'running')
      .where('options', 'like', '%sealed:v1:%'),
  ],
  // Saved recipes (src/core/recipes.ts), per owner token: the checked recipe as JSON text.
  (db) => [
    db.schema
      .createTable('recipes')
      .addColumn('owner_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('recipe', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('recipes_pkey', ['owner_hash', 'name']),
  ],
];

/**
 * The steps a database still needs, and the count to record once they have run. A database made
 * by the earlier per-database migrations records `legacy` when it has the first step's schema, so
 * the count goes on from there: step n (from 1) is recorded as `legacy - 1 + n`. A database those
 * left half-way (an unreleased build) is refused rather than guessed at.
 */
export function pendingMigrations(recorded: number, legacy: number): { steps: Migration[]; version: number } {
  const version = legacy - 1 + MIGRATIONS.length;
  if (recorded === 0) return { steps: [...MIGRATIONS], version };
  if (recorded < legacy)
    throw new FileconvError(
      'CONVERT_API_UNAVAILABLE',
      `the records database is at schema step ${recorded}, from a development build; start from a new database`,
    );
  // A schema newer than this code (a node upgraded first) is left as it is.
  return {
    steps: MIGRATIONS.slice(Math.min(recorded, version) - legacy + 1),
    version: Math.max(recorded, version),
  };
}

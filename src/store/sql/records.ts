import type { Kysely } from 'kysely';
import type { Records } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { SqlKeyStore, SqlQuotaStore, SqlSecretStore, SqlWriteLimitStore } from './identity.js';
import { SqlRecipeStore } from './recipes.js';
import { SqlRequestStore } from './requests.js';
import type { Schema } from './schema.js';

/** The record stores on one migrated database, SQLite or PostgreSQL. */
export function sqlRecords(db: Kysely<Schema>, d: SqlDialect, close: () => Promise<void>): Records {
  return {
    requests: new SqlRequestStore(db, d),
    keys: new SqlKeyStore(db, d),
    quotas: new SqlQuotaStore(db),
    writeLimits: new SqlWriteLimitStore(db, d),
    secrets: new SqlSecretStore(db),
    recipes: new SqlRecipeStore(db, d),
    close,
  };
}

import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Schema } from './schema.js';

/** Where a prepared query's argument goes: a parameter value that compiling leaves in place. */
class Slot {
  constructor(readonly name: string) {}
}

/** Stands in for the arguments while a query is built: each property is its own slot. */
const slots = new Proxy({}, { get: (_, name) => new Slot(String(name)) });

/**
 * A query whose shape never changes, built and compiled once per dialect; each run puts its
 * arguments where the slots were. Building and compiling a query costs the query builder many
 * times what SQLite takes to run it, and these run on every status read, claim and finish.
 * `build` must use its arguments only as values (never to choose the query's shape).
 */
export function prepared<A extends object, R>(
  build: (db: Kysely<Schema>, args: A, d: SqlDialect) => Compilable<R>,
): (db: Kysely<Schema>, d: SqlDialect, args: A) => Promise<QueryResult<R>> {
  const compiled = new Map<SqlDialect['name'], CompiledQuery<R>>();
  return async (db, d, args) => {
    let query = compiled.get(d.name);
    if (!query) {
      query = build(db, slots as A, d).compile();
      compiled.set(d.name, query);
    }
    const values = args as Record<string, unknown>;
    const parameters = query.parameters.map((p) => (p instanceof Slot ? values[p.name] : p));
    const run = { ...query, parameters };
    return (d.runNow(db, run) as QueryResult<R> | undefined) ?? db.executeQuery<R>(run);
  };
}

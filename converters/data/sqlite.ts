import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FileconvError } from '../../src/errors/index.js';
import { extensionOf, type FormatId } from '../../src/formats/index.js';
import { writeData, writeWorkbook, XLSX_MAX_ROWS } from './serialize.js';
import type { DataRecord } from './shape.js';

/** A database file is read table by table into memory: bounded like the data engine's other inputs. */
export const MAX_DATABASE_BYTES = 200 * 1024 * 1024;
/** Tables written at most: each becomes a file (or a sheet). */
export const MAX_TABLES = 200;
/** Rows of all tables together: an Excel sheet's limit, across the database. */
export const MAX_ROWS = XLSX_MAX_ROWS - 1;

export interface DatabaseTable {
  name: string;
  columns: string[];
  records: DataRecord[];
}

/** A cell as every writer takes it: whole numbers past 2^53 as text, blobs as base64. */
function cell(v: unknown): unknown {
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : String(v);
  }
  if (Buffer.isBuffer(v)) return v.toString('base64');
  return v;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The rows of every ordinary table of a SQLite database, tables by name. The file (the job's own
 * copy) is opened read-only and asked nothing but its schema and `SELECT *`: no statement of the
 * file runs (views and triggers are not read), and virtual tables, whose modules could be
 * anything, are left out. Extensions cannot load: the library leaves SQL's load_extension off.
 */
export async function readDatabase(path: string): Promise<DatabaseTable[]> {
  if ((await stat(path)).size > MAX_DATABASE_BYTES) {
    throw new FileconvError(
      'CONVERT_FAILED',
      `The database is larger than the ${MAX_DATABASE_BYTES / 1024 / 1024} MB the data engine reads.`,
    );
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw malformed(e);
  }
  try {
    db.pragma('query_only = ON');
    db.pragma('trusted_schema = OFF');
    const names = db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    if (names.length === 0) throw new FileconvError('CONVERT_FAILED', 'The database has no tables.');
    if (names.length > MAX_TABLES)
      throw new FileconvError('CONVERT_FAILED', `The database has more than ${MAX_TABLES} tables.`);
    let rows = 0;
    return names.map((name) => {
      const stmt = db.prepare(`SELECT * FROM ${quoted(name)}`).safeIntegers(true);
      const columns = stmt.columns().map((c) => c.name);
      const records: DataRecord[] = [];
      for (const row of stmt.iterate() as Iterable<Record<string, unknown>>) {
        if (++rows > MAX_ROWS)
          throw new FileconvError('CONVERT_FAILED', `The database has more than ${MAX_ROWS} rows.`);
        records.push(Object.fromEntries(columns.map((c) => [c, cell(row[c])])));
      }
      return { name, columns, records };
    });
  } catch (e) {
    throw malformed(e);
  } finally {
    db.close();
  }
}

/** SQLite's own refusals of a file that is not a database, or a damaged one. */
function malformed(e: unknown): unknown {
  const code = (e as { code?: string })?.code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return new FileconvError('MALFORMED_DOCUMENT', 'The file is not a SQLite database, or it is damaged.', {
      cause: e,
    });
  return e;
}

/** A sheet name Excel takes (31 characters, none of : \ / ? * [ ]), unique in the workbook. */
function sheetNames(tables: readonly DatabaseTable[]): string[] {
  const seen = new Set<string>();
  return tables.map((t, i) => {
    let name = t.name.replace(/[:\\/?*[\]]/g, '_').slice(0, 31) || `table ${i + 1}`;
    if (seen.has(name.toLowerCase())) name = `${name.slice(0, 31 - String(i + 1).length - 1)}~${i + 1}`;
    seen.add(name.toLowerCase());
    return name;
  });
}

/**
 * A database to `to`: one workbook with a sheet per table, or one CSV or JSON file per table (in
 * table-name order, numbered from 1). Returns the files and the timeline's note naming each table.
 */
export async function convertDatabase(
  input: string,
  to: FormatId,
  output: string,
  maxOutputBytes: number | null,
): Promise<{ files: string[]; note: string }> {
  const tables = await readDatabase(input);
  const listed = tables.map((t, i) => `${i + 1} ${t.name} (${t.records.length} rows)`).join(', ');
  if (to === 'xlsx') {
    const names = sheetNames(tables);
    await writeWorkbook(
      tables.map((t, i) => ({ name: names[i]!, records: t.records, columns: t.columns })),
      output,
    );
    return { files: [output], note: `a sheet per table: ${listed}` };
  }
  const dir = join(output, '..');
  const files: string[] = [];
  for (const [i, t] of tables.entries()) {
    const file = tables.length === 1 ? output : join(dir, `table-${i + 1}.${extensionOf(to)}`);
    await writeData(to, t.records, file, maxOutputBytes, t.columns);
    files.push(file);
  }
  return { files, note: `a file per table: ${listed}` };
}

import { FileconvError } from '../../src/errors/index.js';

export type DataRecord = Record<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function isScalar(v: unknown): boolean {
  return v === null || v instanceof Date || typeof v !== 'object';
}

/** A tree with its single-key wrappers (`{ rows: [...] }`, XML's `<rows><row>`) descended into. */
export function unwrapped(value: unknown, depth = 0): unknown {
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && depth < 3 && !isScalar(value[keys[0]!]))
    return unwrapped(value[keys[0]!], depth + 1);
  return value;
}

/**
 * One record from a nested value: a leaf per column, named by its path with dots, list items by
 * their index (`owner.name`, `tags.0`). Empty lists and objects stay as one cell (`[]`, `{}`).
 * Walks with its own stack, so deep nesting cannot overflow the call stack.
 */
export function flatten(value: object): DataRecord {
  const entries: [string, unknown][] = [];
  const stack: [string, unknown][] = [['', value]];
  while (stack.length > 0) {
    const [path, v] = stack.pop()!;
    const children = Array.isArray(v)
      ? v.map((item, i): [string, unknown] => [String(i), item])
      : isPlainObject(v)
        ? Object.entries(v)
        : undefined;
    if (children === undefined || (children.length === 0 && path !== '')) entries.push([path, v]);
    else
      for (let i = children.length - 1; i >= 0; i--) {
        const [key, child] = children[i]!;
        stack.push([path === '' ? key : `${path}.${key}`, child]);
      }
  }
  // fromEntries keeps a `__proto__` key an ordinary member.
  return Object.fromEntries(entries);
}

/**
 * The records a tree holds, for table targets: the items of a list (found inside single-key
 * wrappers), or a lone object as one record; nested values are flattened (see `flatten`) and
 * scalar items become `{ value }`, and so does a scalar alone (one row of one cell, as TOML's
 * `value = 42`).
 */
export function toRecords(value: unknown): DataRecord[] {
  const inner = unwrapped(value);
  if (Array.isArray(inner)) return inner.map((v) => (isScalar(v) ? { value: v } : flatten(v as object)));
  if (isPlainObject(inner)) return [flatten(inner)];
  return [{ value: inner }];
}

/** Column names in first-seen order across all records. */
export function columnsOf(records: readonly DataRecord[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/** A value as one table cell: nested values are written as JSON text. */
export function cellValue(v: unknown): string | number | boolean | Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date) return v;
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v);
}

/** A cell read from text (csv/tsv) typed back only when that is exact: `42`, `-1.5`, `true`. */
export function typedCell(s: string): string | number | boolean {
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (/^-?(0|[1-9]\d{0,14})(\.\d{1,15})?$/.test(s) && String(Number(s)) === s) return Number(s);
  return s;
}

export type Cell = string | number | boolean | null;

/**
 * Text cells (csv/tsv) typed one type per column, so a reader of the JSON gets what a column's
 * schema says: numbers only when every non-empty cell of the column is one exactly, booleans
 * likewise, else every cell stays the text it was (a ZIP code column of `02134` and `90210` stays
 * text). In a typed column an empty cell is null; in a text column it is "".
 */
export function typedColumns(rows: readonly (readonly string[])[], width: number): Cell[][] {
  const kinds = Array.from({ length: width }, (_, c) => {
    let kind: 'number' | 'boolean' | 'string' | undefined;
    for (const row of rows) {
      const cell = row[c] ?? '';
      if (cell === '') continue;
      const t = typeof typedCell(cell) as 'number' | 'boolean' | 'string';
      if (kind === undefined) kind = t;
      else if (kind !== t) return 'string';
      if (kind === 'string') return 'string';
    }
    return kind ?? 'string';
  });
  return rows.map((row) =>
    kinds.map((kind, c) => {
      const cell = row[c] ?? '';
      if (kind === 'string') return cell;
      return cell === '' ? null : typedCell(cell);
    }),
  );
}

/** Drops null/undefined object members (TOML has no null); a null inside a list cannot be kept. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.some((v) => v === null || v === undefined)) {
      throw new FileconvError('CONVERT_FAILED', 'TOML cannot hold a null inside a list.');
    }
    return value.map(withoutNulls);
  }
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

export { isPlainObject };

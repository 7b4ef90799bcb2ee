import { FileconvError } from '../../src/errors/index.js';

export type DataRecord = Record<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function isScalar(v: unknown): boolean {
  return v === null || v instanceof Date || typeof v !== 'object';
}

function notTabular(): FileconvError {
  return new FileconvError(
    'CONVERT_FAILED',
    'The data is not a list of records, so it cannot become a table; give a list of objects (or an object wrapping one).',
  );
}

/**
 * The records a tree holds, for table targets: a list as it is (scalars become `{ value }`), a
 * wrapper object with one key descended into (`{ rows: [...] }`, XML's `<rows><row>`), and a flat
 * object as a single record. Anything else is not tabular.
 */
export function toRecords(value: unknown, depth = 0): DataRecord[] {
  if (Array.isArray(value)) return value.map((v) => (isPlainObject(v) ? v : { value: v }));
  if (!isPlainObject(value)) throw notTabular();
  const keys = Object.keys(value);
  if (keys.length === 1 && depth < 3 && !isScalar(value[keys[0]!]))
    return toRecords(value[keys[0]!], depth + 1);
  if (keys.every((k) => isScalar(value[k]))) return [value];
  throw notTabular();
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

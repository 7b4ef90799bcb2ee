import { stat, writeFile } from 'node:fs/promises';
import { XMLBuilder } from 'fast-xml-parser';
import Papa from 'papaparse';
import { stringify as stringifyToml } from 'smol-toml';
import { stringify as stringifyYaml } from 'yaml';
import { FileconvError } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';
import { loadExcelJS } from './exceljs.js';
import {
  cellValue,
  columnsOf,
  type DataRecord,
  isPlainObject,
  toRecords,
  unwrapped,
  withoutNulls,
} from './shape.js';

const XML_NAME = /^[A-Za-z_][\w.-]*$/;

/** Keys made into XML element names; attribute (`@_`) and text (`#text`) keys pass through. */
function xmlSafe(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(xmlSafe);
  if (!isPlainObject(value)) return value;
  // fromEntries keeps a `__proto__` key an ordinary member.
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const special = k === '#text' || k.startsWith('@_');
      let name = special ? k : k.replace(/[^\w.-]/g, '_');
      if (!special && !XML_NAME.test(name)) name = `_${name}`;
      return [name, xmlSafe(v)];
    }),
  );
}

/** XML needs one root element: a single-key object is its own root, lists become rows/row. */
function xmlRoot(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return { rows: { row: value } };
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && !keys[0]!.startsWith('@_') && !Array.isArray(value[keys[0]!])) return value;
  }
  return { root: value };
}

function toXml(value: unknown): string {
  const builder = new XMLBuilder({ ignoreAttributes: false, format: true, suppressEmptyNode: false });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(xmlSafe(xmlRoot(value)))}`;
}

function toToml(value: unknown): string {
  const root = isPlainObject(value) ? value : Array.isArray(value) ? { rows: value } : { value };
  try {
    return stringifyToml(withoutNulls(root) as Record<string, unknown>);
  } catch (e) {
    if (e instanceof FileconvError) throw e;
    throw new FileconvError('CONVERT_FAILED', `The data cannot be written as TOML: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

function textCell(v: unknown): string {
  const c = cellValue(v);
  if (c === null) return '';
  return c instanceof Date ? c.toISOString() : String(c);
}

function toDelimited(records: DataRecord[], delimiter: ',' | '\t', columns?: string[]): string {
  // A table with a header and no rows keeps its header: the columns are content too.
  const fields = records.length === 0 && columns ? columns : columnsOf(records);
  const data = records.map((r) => fields.map((f) => textCell(r[f])));
  return `${Papa.unparse({ fields, data }, { delimiter, newline: '\n' })}\n`;
}

function jsonLines(value: unknown): string {
  const inner = unwrapped(value);
  const items = Array.isArray(inner) ? inner : [value];
  return items.map((v) => JSON.stringify(v)).join('\n') + '\n';
}

/** Excel's own sheet limit, header row included. */
export const XLSX_MAX_ROWS = 1_048_576;

/** One sheet of a workbook to write: its name, rows, and the columns to keep when it has none. */
export interface SheetToWrite {
  name: string;
  records: DataRecord[];
  columns?: string[];
}

/** Writes a workbook of one sheet per table, in order. */
export async function writeWorkbook(sheets: readonly SheetToWrite[], path: string): Promise<void> {
  for (const { records } of sheets) {
    if (records.length + 1 > XLSX_MAX_ROWS) {
      throw new FileconvError('CONVERT_FAILED', `An Excel sheet holds at most ${XLSX_MAX_ROWS} rows.`);
    }
  }
  // The streaming writer commits rows as it goes; the in-memory workbook needs gigabytes for big tables.
  const { stream } = await loadExcelJS();
  const workbook = new stream.xlsx.WorkbookWriter({
    filename: path,
    useStyles: false,
    useSharedStrings: false,
  });
  for (const { name, records, columns } of sheets) {
    const sheet = workbook.addWorksheet(name);
    const fields = records.length === 0 && columns ? columns : columnsOf(records);
    sheet.addRow(fields).commit();
    for (const r of records) sheet.addRow(fields.map((f) => cellValue(r[f]))).commit();
    sheet.commit();
  }
  await workbook.commit();
}

function serialized(format: FormatId, value: unknown, columns?: string[]): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(value, null, 2)}\n`;
    case 'yaml':
      return stringifyYaml(value, { aliasDuplicateObjects: false });
    case 'toml':
      return toToml(value);
    case 'xml':
      return toXml(value);
    case 'jsonl':
      return jsonLines(value);
    case 'csv':
      return toDelimited(toRecords(value), ',', columns);
    case 'tsv':
      return toDelimited(toRecords(value), '\t', columns);
  }
  throw new FileconvError('CONVERT_FAILED', `The data engine cannot write ${format}.`);
}

/**
 * Writes `value` as `format` to `path`. `maxBytes` is the output cap engine processes get from the
 * OS (engineOutputLimit); here it is checked before the text touches the disk, and a result past
 * V8's longest string is over any cap too: both are OUTPUT_TOO_LARGE.
 */
export async function writeData(
  format: FormatId,
  value: unknown,
  path: string,
  maxBytes: number | null = null,
  /** Column names of a table read from a sheet, kept when it has a header and no rows. */
  columns?: string[],
): Promise<void> {
  const checkOutputSize = (bytes: number) => {
    if (maxBytes !== null && bytes > maxBytes) throw new FileconvError('OUTPUT_TOO_LARGE');
  };
  if (format === 'xlsx') {
    await writeWorkbook([{ name: 'Sheet1', records: toRecords(value) }], path);
    // The streaming writer goes straight to disk; the runner removes the file with the job folder.
    checkOutputSize((await stat(path)).size);
    return;
  }
  await writeFile(path, serializeData(format, value, maxBytes, columns));
}

/** `value` as the text of `format` (any but xlsx), refused past `maxBytes` as writeData does. */
export function serializeData(
  format: FormatId,
  value: unknown,
  maxBytes: number | null = null,
  columns?: string[],
): string {
  let text: string;
  try {
    text = serialized(format, value, columns);
  } catch (e) {
    if (e instanceof RangeError && /Invalid string length/.test(e.message))
      throw new FileconvError('OUTPUT_TOO_LARGE', undefined, { cause: e });
    throw e;
  }
  if (maxBytes !== null && Buffer.byteLength(text) > maxBytes) throw new FileconvError('OUTPUT_TOO_LARGE');
  return text;
}

import type ExcelJS from 'exceljs';
import { FileconvError } from '../../src/errors/index.js';
import { readZip } from '../../src/fidelity/zip.js';
import { loadExcelJS } from './exceljs.js';
import { firstLine, malformed, uniqueNames, widest } from './parse.js';
import type { DataRecord } from './shape.js';

const BOOLEAN_FORMULA = /^\s*(TRUE|FALSE)\s*\(\s*\)\s*$/i;

function cellToValue(v: ExcelJS.CellValue): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date || typeof v !== 'object') return v;
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('formula' in v || 'sharedFormula' in v) {
    // LibreOffice stores a boolean cell as the formula TRUE() or FALSE(), whose cached result the
    // stream reader gives as 1 or drops.
    const logical = BOOLEAN_FORMULA.exec((v as ExcelJS.CellFormulaValue).formula ?? '');
    if (logical) return logical[1]!.toUpperCase() === 'TRUE';
    return cellToValue((v as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  }
  // A hyperlink's text may itself be rich text.
  if ('hyperlink' in v) return cellToValue((v as ExcelJS.CellHyperlinkValue).text as ExcelJS.CellValue);
  if ('error' in v) return (v as ExcelJS.CellErrorValue).error;
  return JSON.stringify(v);
}

/** The sheet a workbook conversion used: its name and 1-based position in the workbook's tab order. */
export interface ChosenSheet {
  name: string;
  position: number;
  /** Sheets in the workbook. */
  of: number;
}

export interface WorkbookTable {
  records: DataRecord[];
  /** The header row's names, also when no row follows it. */
  columns: string[];
  sheet: ChosenSheet;
}

interface SheetRows {
  name: string;
  position: number;
  hidden: boolean;
  rows: unknown[][];
}

function hasData(rows: readonly unknown[][]): boolean {
  return rows.some((r) => r.some((v) => v !== null && v !== ''));
}

/** Sheets as the workbook lists them (tab order), with their names; the reader's own model. */
interface ReaderModel {
  model?: { sheets?: { name: string }[] };
}

interface SheetScan {
  chosen?: SheetRows;
  seen: { name: string; position: number }[];
  tabs: { name: string }[];
}

/** One pass of the stream reader over the workbook, keeping only the rows of the chosen sheet. */
async function scanSheets(path: string, wanted: string | undefined): Promise<SheetScan> {
  const seen: { name: string; position: number }[] = [];
  let tabs: { name: string }[] = [];
  let chosen: SheetRows | undefined;
  const { stream } = await loadExcelJS();
  const reader = new stream.xlsx.WorkbookReader(path, {
    sharedStrings: 'cache',
    styles: 'cache', // dates are numbers with a date style
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  for await (const sheet of reader) {
    tabs = (reader as unknown as ReaderModel).model?.sheets ?? [];
    // the stream reader sets both from workbook.xml; its typings leave them out
    const { name, state = 'visible' } = sheet as unknown as { name: string; state?: string };
    const index = tabs.findIndex((t) => t.name === name);
    const position = index >= 0 ? index + 1 : seen.length + 1;
    seen.push({ name, position });
    const picked = wanted !== undefined;
    // an exact name beats a sheet whose position happens to be the same digits
    const byName = picked && name === wanted;
    const byPosition = picked && String(position) === wanted && !tabs.some((t) => t.name === wanted);
    const skip = picked ? !byName && !byPosition : chosen !== undefined && chosen.position < position;
    const rows: unknown[][] = [];
    // A skipped sheet is still read through: the reader may have parked it in a temp file that
    // it removes once the sheet's turn is over.
    for await (const row of sheet) {
      if (skip) continue;
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      rows.push(Array.from(values, (v) => cellToValue(v as ExcelJS.CellValue)));
    }
    if (skip) continue;
    const candidate = { name, position, hidden: state !== 'visible', rows };
    if (picked) {
      chosen = candidate;
      break;
    }
    if (candidate.hidden || !hasData(rows)) continue;
    chosen = candidate;
    // Sheets come in file order, mostly the tab order: once every earlier tab was seen empty,
    // no later sheet can come first, and the rest of the workbook is not read.
    const earlier = new Set(seen.map((s) => s.position));
    if (Array.from({ length: position - 1 }, (_, i) => i + 1).every((p) => earlier.has(p))) break;
  }
  return { chosen, seen, tabs };
}

/** Days between the 1900 and 1904 date systems' day zero. */
const DAYS_1900_TO_1904 = 1462;

/**
 * Whether the workbook counts its dates from 1904 (Mac Excel's system, kept by workbooks that
 * began there) in the spelling exceljs's reader misses: it honours `date1904="1"` but not
 * `"true"`, which LibreOffice writes, and then reads every date four years early.
 */
async function date1904Missed(path: string): Promise<boolean> {
  const { texts } = await readZip(path, (name) => name === 'xl/workbook.xml');
  return /<(?:\w+:)?workbookPr\b[^>]*\bdate1904="true"/.test(texts.get('xl/workbook.xml') ?? '');
}

function shiftDates(rows: unknown[][], days: number): void {
  for (const row of rows)
    row.forEach((v, i) => {
      if (v instanceof Date) row[i] = new Date(v.getTime() + days * 86_400_000);
    });
}

/**
 * One sheet of a workbook as records keyed by its first row, read as a stream. `wanted` names the
 * sheet (an exact name first, else a 1-based position); without it, the first visible sheet that
 * holds data, so an empty cover sheet does not give an empty table. Only the chosen sheet's rows
 * are kept.
 */
export async function readWorkbook(path: string, wanted?: string): Promise<WorkbookTable> {
  let scan: SheetScan;
  try {
    scan = await scanSheets(path, wanted);
  } catch {
    // exceljs's stream reader now and then loses a race between the parts of a valid workbook
    // (it reads the sheet list before it is parsed); a second pass reads it, a damaged file fails again.
    try {
      scan = await scanSheets(path, wanted);
    } catch (e) {
      if (e instanceof FileconvError) throw e;
      throw malformed('XLSX', firstLine(e), e);
    }
  }
  const { seen, tabs } = scan;
  let { chosen } = scan;
  const listed = tabs.length >= seen.length ? tabs.map((t, i) => ({ name: t.name, position: i + 1 })) : seen;
  const of = listed.length;
  if (!chosen) {
    if (wanted === undefined)
      chosen = { name: listed[0]?.name ?? 'Sheet1', position: 1, hidden: false, rows: [] };
    else
      throw new FileconvError(
        'CONVERT_FAILED',
        `The workbook has no sheet "${wanted}"; its sheets are ${listed.map((s) => `${s.position} "${s.name}"`).join(', ')}.`,
      );
  }
  if (await date1904Missed(path)) shiftDates(chosen.rows, DAYS_1900_TO_1904);
  const [header = [], ...body] = chosen.rows;
  const names = uniqueNames(header, widest(header, body));
  const records = body.map(
    (cells): DataRecord => Object.fromEntries(names.map((name, i) => [name, cells[i] ?? null])),
  );
  return { records, columns: names, sheet: { name: chosen.name, position: chosen.position, of } };
}

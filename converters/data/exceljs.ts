import type ExcelJS from 'exceljs';

let loading: Promise<typeof ExcelJS> | undefined;

/**
 * ExcelJS, imported on first use: it takes about half a second to load, which every command and
 * server start would pay for a spreadsheet it may never see.
 */
export function loadExcelJS(): Promise<typeof ExcelJS> {
  loading ??= import('exceljs').then(
    (m) => (m as { default?: typeof ExcelJS }).default ?? (m as unknown as typeof ExcelJS),
  );
  return loading;
}

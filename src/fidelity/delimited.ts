import Papa from 'papaparse';
import type { FileCounts } from '../engine/checks.js';
import type { FormatId } from '../formats/index.js';

/** A CSV or TSV is one sheet; its rows are its records, blank lines left out. */
export function delimitedTextCounts(text: string, format: FormatId): FileCounts {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    delimiter: format === 'tsv' ? '\t' : '',
    skipEmptyLines: 'greedy',
  });
  return { sheets: 1, rows: parsed.data.length };
}

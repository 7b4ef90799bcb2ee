import { type FormatId, getFormat } from '../../formats/index.js';

/** Formats that are text underneath: their bytes are characters in some encoding. */
const TEXT_FAMILIES = new Set(['text', 'code']);
const TEXT_FORMATS = new Set(['html', 'svg', 'csv', 'tsv', 'json', 'jsonl', 'yaml', 'toml', 'xml', 'fb2']);

export const isTextFormat = (id: FormatId) =>
  TEXT_FORMATS.has(id) || TEXT_FAMILIES.has(getFormat(id)?.family ?? '');

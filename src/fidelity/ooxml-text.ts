import type { FormatId } from '../formats/index.js';

/**
 * The elements whose content OOXML shows as text: a run's text in Word, a drawing's text in
 * slides (and in Word's shapes). Everything else between tags is not shown: a picture's position
 * offsets, a field's instruction.
 */
export const OOXML_TEXT: Partial<Record<FormatId, RegExp>> = {
  docx: /^<(?:w|a):t\b/,
  pptx: /^<a:t\b/,
};

/**
 * The XML with only shown text left between its tags. A shape or text box is written twice, for
 * new readers and as a fallback for old ones (`mc:Fallback`): the fallback is dropped.
 */
export function ooxmlShownText(xml: string, shown: RegExp): string {
  return xml
    .replace(/<mc:Fallback\b[\s\S]*?<\/mc:Fallback>/g, '')
    .replace(/(<[^>]*>)([^<]+)/g, (all, tag: string) => (shown.test(tag) ? all : tag));
}

/** A string item's runs, without phonetic guides (`rPh`), which show only on request. */
const itemXml = (si: string) => ooxmlShownText(si.replace(/<rPh\b[\s\S]*?<\/rPh>/g, ''), /^<t\b/);

/** Rows hidden by their outline (collapsed groups), with or without cells. */
const HIDDEN_ROW = /<row\b[^>]*\bhidden="(?:1|true)"[^>]*?(?:\/>|>[\s\S]*?<\/row>)/g;
/** A cell: its attributes and, unless it is empty (`<c r="B2"/>`), its content. */
const CELL = /<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g;

/** What one cell shows: a shared string by reference, an inline string, or its value. */
function cellXml(attrs: string, cell: string, shared: string[]): string {
  const value = /<v>([\s\S]*?)<\/v>/.exec(cell)?.[1] ?? '';
  if (/\bt="s"/.test(attrs)) return shared[Number(value)] ?? '';
  if (/\bt="inlineStr"/.test(attrs)) return itemXml(cell);
  return value;
}

/**
 * The markup of what a workbook's cells show, one `<c/>` apart: shared strings by reference,
 * inline strings, values (numbers, formula results; never the formula). Rows hidden by their
 * outline are neither shown nor printed.
 */
export function workbookShownXml(parts: Map<string, string>): string {
  const strings = parts.get('xl/sharedStrings.xml') ?? '';
  const shared = [...strings.matchAll(/<si\b[^>]*>([\s\S]*?)<\/si>/g)].map((m) => itemXml(m[1] ?? ''));
  return [...parts]
    .filter(([name]) => name.startsWith('xl/worksheets/'))
    .flatMap(([, xml]) =>
      [...xml.replace(HIDDEN_ROW, '').matchAll(CELL)].map(([, attrs = '', cell = '']) =>
        cellXml(attrs, cell, shared),
      ),
    )
    .join('<c/>');
}

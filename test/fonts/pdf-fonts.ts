import { execFileSync } from 'node:child_process';
import { XMLParser } from 'fast-xml-parser';

/** What a PDF says about its fonts (pdffonts, pdftohtml) and what the installed fonts cover (fc-list). */

/** fontconfig as the system has it, whatever FONTCONFIG_FILE the test process carries. */
const SYSTEM_FONTS_ENV = { ...process.env, FONTCONFIG_FILE: '/etc/fonts/fonts.conf' };

/**
 * `ABCDEF+NotoSansThai-Regular` and `NotoSansThai` both become `NotoSansThai`; so does a style glued
 * to the family without a hyphen (LibreOffice embeds URW's `NimbusRoman-Bold` as `NimbusRomanBold`).
 */
export function fontKey(name: string): string {
  const family = name.replace(/^[A-Z]{6}\+/, '').split('-')[0] ?? name;
  return family.replace(/(?:Regular|Bold|Italic|Oblique)+$/, '') || family;
}

/** pdffonts' rows: the embedded fonts' names, and whether any font is Type 3 (glyphs as drawing procedures). */
export function pdfFonts(pdf: string): { named: Set<string>; type3: boolean } {
  const out = execFileSync('pdffonts', [pdf], { encoding: 'utf8' });
  const rows = out.split('\n').slice(2).filter(Boolean);
  const type3 = rows.some((r) => /\sType 3\s/.test(r));
  const named = rows.filter((r) => / yes /.test(r) && !r.startsWith('[none]'));
  return { named: new Set(named.map((r) => fontKey(r.split(/\s+/)[0] ?? ''))), type3 };
}

/** Keys of the named fonts a PDF embeds (pdffonts). */
export function embeddedFonts(pdf: string): Set<string> {
  return pdfFonts(pdf).named;
}

/** Each installed font's key and the code point ranges it has glyphs for, as fontconfig reports them. */
let installedCharsets: { key: string; ranges: [number, number][] }[] | undefined;

function charsets(): { key: string; ranges: [number, number][] }[] {
  // One fc-list for all fonts: asking fontconfig once per run of text took minutes for a long
  // CJK document (thousands of runs, each its own character set).
  installedCharsets ??= execFileSync('fc-list', ['-f', '%{postscriptname}\t%{charset}\n'], {
    encoding: 'utf8',
    env: SYSTEM_FONTS_ENV,
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => {
      const [name, set] = line.split('\t') as [string, string];
      const ranges = set
        .split(' ')
        .filter(Boolean)
        .map((r): [number, number] => {
          const [from, to] = r.split('-');
          return [Number.parseInt(from!, 16), Number.parseInt(to ?? from!, 16)];
        });
      return { key: fontKey(name), ranges };
    })
    .filter((f) => f.key);
  return installedCharsets;
}

/** Whether sorted, disjoint ranges hold a code point (binary search). */
function holds(ranges: readonly [number, number][], code: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = ranges[mid]!;
    if (code < from) hi = mid - 1;
    else if (code > to) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Keys of the installed fonts that have a glyph for every one of `chars` (fontconfig's charsets). */
export function fontsCovering(chars: readonly string[]): Set<string> {
  const codes = [...new Set(chars)].map((c) => c.codePointAt(0)!);
  return new Set(charsets().flatMap((f) => (codes.every((c) => holds(f.ranges, c)) ? [f.key] : [])));
}

/**
 * Characters that must have a glyph: no spaces, no invisible direction or joiner marks, and no
 * U+FFFD, which poppler writes where a PDF does not say which character a glyph is.
 */
export function inkedChars(text: string): string[] {
  return [...text].filter((c) => !/[\s\p{Cf}\uFFFD]/u.test(c));
}

export interface TextRun {
  page: number;
  top: number;
  left: number;
  width: number;
  height: number;
  font: string;
  text: string;
}

/** Every string inside a parsed element, bold and italic children included, in no particular order. */
function strings(node: unknown): string[] {
  if (typeof node === 'string' || typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object')
    return Object.entries(node)
      .filter(([k]) => !['top', 'left', 'width', 'height', 'font'].includes(k))
      .flatMap(([, v]) => strings(v));
  return [];
}

interface RunXml {
  top: string;
  left: string;
  width: string;
  height: string;
  font: string;
}

/**
 * Every run of text with the font that draws it and its box, in pixels at 108 dpi (pdftohtml -xml).
 * The text holds the run's characters, not necessarily in order (bold parts come apart).
 */
export function textRuns(pdf: string): TextRun[] {
  // A long document's runs take several megabytes, past execFileSync's 1 MB default.
  const xml = execFileSync('pdftohtml', ['-xml', '-i', '-stdout', '-q', pdf], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    isArray: (name) => ['page', 'text', 'fontspec'].includes(name),
  });
  const doc = parser.parse(xml) as {
    pdf2xml: {
      page?: Array<{ number: string; fontspec?: Array<{ id: string; family: string }>; text?: RunXml[] }>;
    };
  };
  const fonts = new Map<string, string>();
  const runs: TextRun[] = [];
  for (const page of doc.pdf2xml.page ?? []) {
    for (const spec of page.fontspec ?? []) fonts.set(spec.id, fontKey(spec.family));
    for (const t of page.text ?? []) {
      runs.push({
        page: Number(page.number),
        top: Number(t.top),
        left: Number(t.left),
        width: Number(t.width),
        height: Number(t.height),
        font: fonts.get(t.font) ?? '?',
        text: strings(t).join(''),
      });
    }
  }
  return runs;
}

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import sharp from 'sharp';
import type { ScriptLine } from './documents.js';

/**
 * Looks at what a PDF draws, not only at its text layer: which fonts it embeds, which font draws
 * each run of text, whether that font has glyphs for the run's characters (a font without them
 * draws its .notdef box), and whether the run leaves ink on the rendered page (a colour emoji font
 * whose bitmaps the PDF dropped leaves none).
 */

/** fontconfig as the system has it, whatever FONTCONFIG_FILE the test process carries. */
const SYSTEM_FONTS_ENV = { ...process.env, FONTCONFIG_FILE: '/etc/fonts/fonts.conf' };

/** `ABCDEF+NotoSansThai-Regular` and `NotoSansThai` both become `NotoSansThai`. */
export function fontKey(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, '').split('-')[0] ?? name;
}

/** Keys of the fonts a PDF embeds (pdffonts). */
export function embeddedFonts(pdf: string): Set<string> {
  const out = execFileSync('pdffonts', [pdf], { encoding: 'utf8' });
  const rows = out.split('\n').slice(2).filter(Boolean);
  return new Set(rows.filter((r) => / yes /.test(r)).map((r) => fontKey(r.split(/\s+/)[0] ?? '')));
}

const coverCache = new Map<string, Set<string>>();

/** Keys of the installed fonts that have a glyph for every one of `chars` (fc-list's charset test). */
export function fontsCovering(chars: readonly string[]): Set<string> {
  const hex = [...new Set(chars)].map((c) => c.codePointAt(0)!.toString(16)).sort();
  const cacheKey = hex.join(' ');
  let keys = coverCache.get(cacheKey);
  if (!keys) {
    const out = execFileSync('fc-list', [`:charset=${cacheKey}`, 'postscriptname'], {
      encoding: 'utf8',
      env: SYSTEM_FONTS_ENV,
    });
    keys = new Set(
      out
        .split('\n')
        .map((l) => /postscriptname=(\S+)/.exec(l)?.[1])
        .filter((n): n is string => Boolean(n))
        .map(fontKey),
    );
    coverCache.set(cacheKey, keys);
  }
  return keys;
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

/** Every run of text with the font that draws it and its box, in pixels at 108 dpi (pdftohtml -xml). */
export function textRuns(pdf: string): TextRun[] {
  const xml = execFileSync('pdftohtml', ['-xml', '-i', '-stdout', '-q', pdf], { encoding: 'utf8' });
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    stopNodes: ['*.text'],
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
        text: decodeEntities(String(t['#text'] ?? '').replace(/<[^>]*>/g, '')),
      });
    }
  }
  return runs;
}

interface RunXml {
  top: string;
  left: string;
  width: string;
  height: string;
  font: string;
  '#text'?: string;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Pages rendered in grey at 108 dpi, the scale of pdftohtml's boxes (1.5 pixels per point). */
async function renderPages(
  pdf: string,
): Promise<Map<number, { data: Buffer; width: number; height: number }>> {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-glyphs-'));
  try {
    execFileSync('pdftoppm', ['-r', '108', '-gray', '-png', pdf, join(dir, 'page')]);
    const pages = new Map<number, { data: Buffer; width: number; height: number }>();
    for (const file of readdirSync(dir).sort()) {
      const page = Number(/-(\d+)\.png$/.exec(file)?.[1]);
      const { data, info } = await sharp(join(dir, file))
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      pages.set(page, { data, width: info.width, height: info.height });
    }
    return pages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Share of dark pixels inside a box of a rendered page. */
function inkShare(
  page: { data: Buffer; width: number; height: number },
  box: Pick<TextRun, 'top' | 'left' | 'width' | 'height'>,
): number {
  let dark = 0;
  let all = 0;
  const x1 = Math.min(page.width, Math.ceil(box.left + box.width));
  const y1 = Math.min(page.height, Math.ceil(box.top + box.height));
  for (let y = Math.max(0, Math.floor(box.top)); y < y1; y++) {
    for (let x = Math.max(0, Math.floor(box.left)); x < x1; x++) {
      all++;
      if ((page.data[y * page.width + x] ?? 255) < 128) dark++;
    }
  }
  return all === 0 ? 0 : dark / all;
}

export interface GlyphReport {
  embedded: Set<string>;
  runs: TextRun[];
  /** One line per fault; empty when every script is drawn with real glyphs. */
  problems: string[];
}

/** Checks every line of `lines` in the PDF; `problems` names each script drawn as boxes or not at all. */
export async function inspectGlyphs(pdf: string, lines: readonly ScriptLine[]): Promise<GlyphReport> {
  const embedded = embeddedFonts(pdf);
  const runs = textRuns(pdf);
  const pages = await renderPages(pdf);
  const problems: string[] = [];
  for (const run of runs) {
    const chars = inkedChars(run.text);
    if (chars.length > 0 && !fontsCovering(chars).has(run.font))
      problems.push(`"${run.text}" is drawn with ${run.font}, which has no glyphs for it (boxes)`);
  }
  for (const line of lines) {
    const sample = inkedChars(line.text);
    if (![...fontsCovering(sample)].some((k) => embedded.has(k)))
      problems.push(`${line.script}: no embedded font covers it (embedded: ${[...embedded].join(', ')})`);
    const mine = runs.filter((r) => inkedChars(r.text).some((c) => sample.includes(c)));
    if (mine.length === 0) {
      problems.push(`${line.script}: not in the text layer`);
      continue;
    }
    for (const run of mine) {
      const page = pages.get(run.page);
      if (!page || inkShare(page, run) < 0.01)
        problems.push(`${line.script}: "${run.text}" leaves no ink on page ${run.page}`);
    }
  }
  return { embedded, runs, problems };
}

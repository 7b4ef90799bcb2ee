import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { closeEngines } from '../../src/engine/registry.js';
import { isTextFormat } from '../../src/formats/text.js';
import { loadCatalog } from '../../src/plan/index.js';
import { runConversion } from '../../src/run/runner.js';
import { textAtTheDoor } from '../../src/run/text-door.js';
import { fileScopedDir, zipEntries } from '../helpers/office.js';
import {
  ENCODINGS,
  FORMATS,
  type MatrixEncoding,
  type MatrixFormat,
  sourceBytes,
  textOf,
  wordsOf,
} from './_encoding-matrix.js';

/*
 * The encoding matrix: every text source of the matrix in every encoding is decoded at the door
 * with all of its words, and converted to each of its catalog targets whose text a tool other
 * than the converter can read (pdftotext; the XML of DOCX, XLSX, ODF and EPUB; the text of text
 * outputs, JSON parsed). In CI each source goes to PDF, DOCX, JSON and HTML where its catalog has
 * them, once each, the encodings taken in turn (the door hands every engine the same UTF-8,
 * whatever the source's encoding, so the engine paths are what differ); FILECONV_ENCODING_MATRIX=full
 * converts the source to every readable target in every encoding.
 */

const fixtures = fileScopedDir('fileconv-encoding-matrix-');
const dir = fixtures.dir;
const full = process.env.FILECONV_ENCODING_MATRIX === 'full';
const plans = (await loadCatalog()).plans;

/** Targets whose words are read without the converter; pictures, sound and binary Office formats are not. */
const READABLE = new Set([
  'pdf',
  'pdfa',
  'docx',
  'xlsx',
  'pptx',
  'odt',
  'ods',
  'odp',
  'epub',
  'html',
  'md',
  'txt',
  'rst',
  'tex',
  'rtf',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'yaml',
  'toml',
  'xml',
  'fb2',
]);

/** In CI: one target per kind of engine path (printed, word-processed, parsed, rendered as a page). */
const QUICK = new Set(['pdf', 'docx', 'json', 'html']);

const entities = (t: string) =>
  t
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)));
const escapes = (t: string) =>
  t.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
const rtfText = (t: string) =>
  t.replace(/\\u(-?\d+)\s?(\\'[0-9a-f]{2}|\?)?/g, (_, n: string) =>
    String.fromCharCode((Number(n) + 0x10000) % 0x10000),
  );

/** The output's text, read by tools the conversion did not use. */
async function extract(path: string, to: string): Promise<string> {
  if (to === 'pdf' || to === 'pdfa')
    return execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
  if (['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub'].includes(to)) {
    const parts = [...(await zipEntries(path))].filter(([name]) => /\.(xml|x?html?)$/.test(name));
    return entities(parts.map(([, bytes]) => bytes.toString('utf8').replace(/<[^>]+>/g, '')).join('\n'));
  }
  const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path));
  if (to === 'json') return JSON.stringify(JSON.parse(text), null, 0).replace(/\\u([0-9a-f]{4})/g, '');
  if (to === 'rtf') return rtfText(text);
  if (['html', 'xml', 'fb2'].includes(to)) return entities(text);
  return escapes(text);
}

const flat = (t: string) => t.replace(/\s+/g, '');

const tally = new Map<string, { kept: number; all: number }>();
function count(key: string, kept: boolean) {
  const t = tally.get(key) ?? { kept: 0, all: 0 };
  tally.set(key, { kept: t.kept + (kept ? 1 : 0), all: t.all + 1 });
}

afterAll(async () => {
  const rows = [...tally].sort(([a], [b]) => a.localeCompare(b));
  if (rows.length) console.log(rows.map(([k, t]) => `${k}: ${t.kept}/${t.all} keep their words`).join('\n'));
  await closeEngines();
  fixtures.cleanup();
});

function write(format: MatrixFormat, e: MatrixEncoding): string {
  const folder = join(dir, e.name.replace(/\W+/g, '-'));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `records.${format}`);
  writeFileSync(path, sourceBytes(format, e));
  return path;
}

describe('the encoding matrix', () => {
  const cells = FORMATS.flatMap((f) => ENCODINGS.map((e) => [`${f} in ${e.name}`, f, e] as const));

  it.each(cells)(
    '%s is decoded at the door with all its words, and detect says how',
    async (_, format, e) => {
      const path = write(format, e);
      const door = textAtTheDoor(readFileSync(path), format)!;
      const text = new TextDecoder('utf-8', { fatal: true }).decode(door.bytes);
      expect(wordsOf(e).filter((w) => !text.includes(w))).toEqual([]);
      expect(text.charCodeAt(0)).not.toBe(0xfeff);
      const report = await detect(path);
      expect(report.encoding_source).toBe(e.bom ? 'bom' : door.found.source);
      expect(door.note).toContain(door.found.encoding);
    },
  );

  for (const [i, format] of FORMATS.entries()) {
    const targets = plans
      .filter((p) => p.from === format && READABLE.has(p.to) && (full || QUICK.has(p.to)))
      .map((p) => p.to);
    it.skipIf(targets.length === 0)(
      `${format} keeps its words in each of its catalog targets (skipped: no engine converts it)`,
      async () => {
        const jobs = targets.flatMap((to, j) =>
          full ? ENCODINGS.map((e) => ({ to, e })) : [{ to, e: ENCODINGS[(i * 5 + j) % ENCODINGS.length]! }],
        );
        const lost: string[] = [];
        // Two at once: the machine's two cores, the engines' own pools shared.
        for (let k = 0; k < jobs.length; k += 2) {
          await Promise.all(
            jobs.slice(k, k + 2).map(async ({ to, e }) => {
              const input = write(format, e);
              const outDir = join(dir, 'out', `${format}-${to}-${e.name.replace(/\W+/g, '-')}`);
              let missing: string[];
              try {
                const { files } = await runConversion({ input, from: format, to, outDir });
                const text = flat(await extract(files[0]!.path, to));
                missing = wordsOf(e).filter((w) => !text.includes(flat(w)));
              } catch (error) {
                missing = [`failed: ${(error as Error).message}`];
              }
              count(`from ${format}`, missing.length === 0);
              count(`in ${e.name}`, missing.length === 0);
              if (missing.length) lost.push(`${format} in ${e.name} to ${to}: ${missing.join(' ')}`);
            }),
          );
        }
        expect(lost).toEqual([]);
      },
      full ? 1_800_000 : 300_000,
    );
  }
});

/**
 * Every text source in the catalog, in every encoding: what the door hands the engines is byte for
 * byte what it hands them for the same text saved as UTF-8, with every word, so each engine path
 * proved above on the matrix's formats gets the same input from any of them. In process, no engine.
 */
describe('the door, for every text source in the catalog', () => {
  const sources = [...new Set(plans.map((p) => p.from))].filter(isTextFormat).sort();

  it('covers the text family, the code formats and subtitles', () => {
    expect(sources).toEqual(expect.arrayContaining([...FORMATS, 'srt', 'vtt', 'toml', 'jsonl', 'svg']));
  });

  it.each(sources)('%s in every encoding reaches the engines as its UTF-8 original does', (format) => {
    const wrong: string[] = [];
    for (const e of ENCODINGS) {
      const original = textAtTheDoor(Buffer.from(textOf(format, e), 'utf8'), format)!.bytes;
      const door = textAtTheDoor(sourceBytes(format, e), format)!;
      const text = Buffer.from(door.bytes).toString('utf8');
      const missing = wordsOf(e).filter((w) => !text.includes(w));
      if (!Buffer.from(door.bytes).equals(Buffer.from(original)) || missing.length > 0)
        wrong.push(
          `${e.name}: read as ${door.found.encoding}${missing.length ? `, lost ${missing.join(' ')}` : ''}`,
        );
    }
    expect(wrong).toEqual([]);
  });
});

import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormatId } from '../../src/formats/index.js';
import { runConversion } from '../../src/run/runner.js';
import { fileScopedDir } from '../helpers/office.js';
import { SCRIPT_LINES, writeHtml, writeMarkdown, writeOdp, writeOds, writeOdt } from './documents.js';
import { inspectGlyphs } from './glyphs.js';

/*
 * A document with text in fifteen scripts plus emoji, headed in Cambria over Calibri body text, as
 * DOCX, ODT, XLSX, PPTX, HTML and Markdown, converted to PDF by fileconv's runner. Each PDF must
 * embed a font covering every script, draw every run with a font that has its glyphs, leave ink
 * where every run is, and (where the source names fonts) embed Carlito and Caladea.
 */

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const fixtures = fileScopedDir('fileconv-fonts-');
const dir = fixtures.dir;
const inputs = new Map<FormatId, string>();

async function convert(input: string, from: FormatId, to: FormatId, name: string): Promise<string> {
  const result = await runConversion({ input, from, to, outDir: dir, baseName: name });
  const [file] = result.files;
  if (!file) throw new Error(`${from} to ${to} wrote nothing`);
  return file.path;
}

beforeAll(async () => {
  const odt = join(dir, 'scripts.odt');
  const ods = join(dir, 'scripts.ods');
  const odp = join(dir, 'scripts.odp');
  await Promise.all([writeOdt(odt), writeOds(ods), writeOdp(odp)]);
  inputs.set('odt', odt);
  inputs.set('html', join(dir, 'scripts.html'));
  inputs.set('md', join(dir, 'scripts.md'));
  await writeHtml(inputs.get('html')!);
  await writeMarkdown(inputs.get('md')!);
  // Office formats as LibreOffice writes them, from the same ODF documents.
  inputs.set('docx', await convert(odt, 'odt', 'docx', 'scripts-docx'));
  inputs.set('xlsx', await convert(ods, 'ods', 'xlsx', 'scripts-xlsx'));
  inputs.set('pptx', await convert(odp, 'odp', 'pptx', 'scripts-pptx'));
}, 180_000);

afterAll(() => fixtures.cleanup());

const SOURCES: FormatId[] = ['docx', 'odt', 'xlsx', 'pptx', 'html', 'md'];

describe.each(SOURCES)('%s to PDF', (format) => {
  it('draws every script and the emoji with real glyphs', async () => {
    const pdf = await convert(inputs.get(format)!, format, 'pdf', `from-${format}`);
    const report = await inspectGlyphs(pdf, SCRIPT_LINES);
    expect(report.problems).toEqual([]);
    // Markdown names no fonts; every other source asks for Calibri and Cambria.
    if (format !== 'md') expect([...report.embedded]).toEqual(expect.arrayContaining(['Carlito', 'Caladea']));
  }, 120_000);
});

/** A fontconfig setup without Noto, Symbola and the Office substitutes: what the issue saw. */
const WITHOUT_SCRIPT_FONTS = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include>/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont>
    <glob>/usr/share/fonts/truetype/noto/*</glob>
    <glob>/usr/share/fonts/opentype/noto/*</glob>
    <glob>/usr/share/fonts/truetype/ancient-scripts/*</glob>
    <glob>/usr/share/fonts/truetype/crosextra/*</glob>
  </rejectfont></selectfont>
</fontconfig>
`;

describe('the glyph check', () => {
  it('fails on a PDF whose scripts were drawn as boxes', async () => {
    const conf = join(dir, 'without-script-fonts.conf');
    writeFileSync(conf, WITHOUT_SCRIPT_FONTS, { mode: 0o644 });
    // Engines run as their own user: the base configuration must be readable by it.
    chmodSync(dir, 0o755);
    const out = join(dir, 'boxes.pdf');
    // Its own process, so its LibreOffice starts with this fontconfig setup; the fontconfig file
    // fileconv writes on top of it goes to this test's folder. ODT, which only LibreOffice renders.
    const r = await execa('node', [BIN, 'convert', inputs.get('odt')!, out], {
      env: { FONTCONFIG_FILE: conf, FILECONV_TMPDIR: dir },
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = await inspectGlyphs(out, SCRIPT_LINES);
    expect(report.embedded.has('Carlito')).toBe(false);
    for (const script of [
      'Chinese',
      'Japanese',
      'Korean',
      'Devanagari',
      'Bengali',
      'Tamil',
      'Thai',
      'Ethiopic',
    ]) {
      expect(report.problems.join('\n')).toContain(`${script}: no embedded font covers it`);
    }
    // Both the font check and the pixel check see the boxes.
    expect(report.problems.some((p) => p.includes('which has no glyphs for it (boxes)'))).toBe(true);
    expect(report.problems.some((p) => p.endsWith('is drawn as missing-glyph boxes'))).toBe(true);
  }, 120_000);
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeXml } from '../../src/fonts/fontconfig.js';
import type { FormatId } from '../../src/formats/index.js';
import { runConversion } from '../../src/run/runner.js';
import { fileScopedDir } from '../helpers/office.js';
import { HEADING, SCRIPT_LINES } from './documents.js';
import { inspectGlyphs } from './glyphs.js';

/*
 * The SVG renderers (rsvg-convert in its own process, libvips inside this one) draw a font the SVG
 * names but the machine lacks with the same substitute LibreOffice uses: an SVG naming Calibri
 * renders pixel for pixel like one naming Carlito.
 */

const fixtures = fileScopedDir('fileconv-fonts-svg-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

let made = 0;

function svgFile(lines: ReadonlyArray<{ font: string; text: string }>): string {
  const height = 40 * lines.length + 20;
  const body = lines
    .map(
      (l, i) =>
        `<text x="10" y="${40 * (i + 1)}" font-family="${escapeXml(l.font)}" font-size="24">${escapeXml(l.text)}</text>`,
    )
    .join('\n');
  const path = join(dir, `drawing-${made++}.svg`);
  writeFileSync(
    path,
    `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="${height}"><rect width="900" height="${height}" fill="#fff"/>\n${body}\n</svg>\n`,
  );
  return path;
}

async function convert(svg: string, to: FormatId): Promise<string> {
  const result = await runConversion({ input: svg, from: 'svg', to, outDir: dir, baseName: `out-${made++}` });
  return result.files[0]!.path;
}

async function pixels(svg: string, to: FormatId): Promise<Buffer> {
  return sharp(await convert(svg, to))
    .greyscale()
    .raw()
    .toBuffer();
}

/** Mean difference of two same-sized grey images, 0 (identical) to 255. */
function meanDifference(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

const PAIRS = [
  { named: 'Calibri', substitute: 'Carlito', text: 'Calibri body text, 0123456789' },
  { named: 'Cambria', substitute: 'Caladea', text: 'Cambria heading text, 0123456789' },
  { named: 'Aptos', substitute: 'Carlito', text: 'Aptos body text, 0123456789' },
  { named: 'Segoe UI', substitute: 'Noto Sans', text: 'Segoe UI text, 0123456789' },
  { named: 'Consolas', substitute: 'Liberation Mono', text: 'Consolas code(0123456789)' },
  { named: 'SimSun', substitute: 'Noto Serif CJK SC', text: '宋体中文文本：你好世界' },
  { named: 'Segoe UI Emoji', substitute: 'Symbola', text: '😀 🎉 👍 🌍' },
];

// png goes through rsvg-convert, jpg through libvips in this process.
describe.each(['png', 'jpg'] as FormatId[])('SVG to %s', (to) => {
  it('draws each named font with the substitute LibreOffice uses', async () => {
    const named = await pixels(svgFile(PAIRS.map((p) => ({ font: p.named, text: p.text }))), to);
    const substituted = await pixels(svgFile(PAIRS.map((p) => ({ font: p.substitute, text: p.text }))), to);
    const other = await pixels(svgFile(PAIRS.map((p) => ({ font: 'DejaVu Serif', text: p.text }))), to);
    expect(meanDifference(named, substituted)).toBeLessThan(0.5);
    // The comparison can fail: a different face changes many pixels.
    expect(meanDifference(named, other)).toBeGreaterThan(2);
  }, 60_000);
});

describe('SVG to PDF', () => {
  it('embeds Carlito, Caladea and a font for every script, with real glyphs', async () => {
    // rsvg-convert puts colour emoji into the PDF as images, outside the text layer.
    const lines = SCRIPT_LINES.filter((l) => l.script !== 'Emoji');
    const svg = svgFile([
      { font: 'Cambria', text: HEADING },
      ...lines.map((l) => ({ font: 'Calibri', text: `${l.script}: ${l.text}` })),
    ]);
    const report = await inspectGlyphs(await convert(svg, 'pdf'), lines);
    expect(report.problems).toEqual([]);
    expect([...report.embedded]).toEqual(expect.arrayContaining(['Carlito', 'Caladea']));
  }, 60_000);
});

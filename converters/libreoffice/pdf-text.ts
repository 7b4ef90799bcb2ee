import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepContext } from '../../src/engine/contract.js';
import { runProcess } from '../../src/run/process.js';
import { popplerTool } from '../_pdf.js';

/**
 * A PDF's text as flowing paragraphs, with its pictures: what the layout import's fallback hands
 * Writer (pdf-import.ts). Text alone lost every picture of a long paper; pdfimages takes them out
 * as they are stored and each one follows its page's text, at the size the page showed it.
 */

/** The widest a picture is placed, in inches: a page's text width at the default margins. */
const MAX_WIDTH_IN = 6.5;
const MAX_HEIGHT_IN = 9;

interface Placed {
  page: number;
  num: number;
  object: string;
  widthIn: number;
  heightIn: number;
}

/**
 * The pictures `pdfimages -list` shows, each object once (a logo on every page is one picture,
 * kept where it first shows). Soft masks and stencils are parts of a picture, not pictures.
 */
export function placedPictures(list: string): Placed[] {
  const seen = new Set<string>();
  const out: Placed[] = [];
  for (const line of list.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+image\s+(\d+)\s+(\d+)\s+(?:\S+\s+){5}(\d+)\s+\d+\s+(\d+)\s+(\d+)/.exec(
      line,
    );
    if (!m) continue;
    const [, page, num, w, h, object, xppi, yppi] = m.map(Number) as number[];
    if (seen.has(String(object))) continue;
    seen.add(String(object));
    let widthIn = w! / (xppi! || 96);
    let heightIn = h! / (yppi! || 96);
    const shrink = Math.min(1, MAX_WIDTH_IN / widthIn, MAX_HEIGHT_IN / heightIn);
    widthIn *= shrink;
    heightIn *= shrink;
    out.push({ page: page!, num: num!, object: String(object), widthIn, heightIn });
  }
  return out;
}

const escapeXml = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

const inches = (n: number) => `${n.toFixed(3)}in`;

function frame(name: string, p: Placed, data: Buffer, type: string): string {
  return (
    `<text:p><draw:frame draw:name="${name}" text:anchor-type="as-char" svg:width="${inches(p.widthIn)}" ` +
    `svg:height="${inches(p.heightIn)}"><draw:image draw:mime-type="${type}">` +
    `<office:binary-data>${data.toString('base64')}</office:binary-data></draw:image></draw:frame></text:p>`
  );
}

const NS = [
  'office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
]
  .map((n) => `xmlns:${n}`)
  .join(' ');

/**
 * Writes a flat ODT of the PDF's text, a paragraph a line and each page after a page break, with
 * the page's pictures after its text. Returns the file and how many pictures it holds.
 */
export async function textWithPictures(
  pdf: string,
  ctx: StepContext,
): Promise<{ file: string; pictures: number }> {
  const text = join(ctx.workDir, 'pdf-text.txt');
  const dir = join(ctx.workDir, 'pdf-pictures');
  await runProcess(popplerTool('pdftotext'), ['-enc', 'UTF-8', pdf, text], ctx);
  const { stdout: list } = await runProcess(popplerTool('pdfimages'), ['-list', pdf], ctx);
  const placed = placedPictures(list);
  const files = new Map<string, string>();
  if (placed.length) {
    await mkdir(dir, { recursive: true });
    // JPEGs stay JPEGs; every other encoding (JBIG2, CCITT, JPEG 2000, raw) becomes a PNG.
    await runProcess(popplerTool('pdfimages'), ['-j', '-png', pdf, join(dir, 'p')], ctx);
    for (const f of await readdir(dir)) {
      const num = /^p-(\d+)\.(png|jpg)$/.exec(f);
      if (num) files.set(String(Number(num[1])), join(dir, f));
    }
  }
  const pages = (await readFile(text, 'utf8')).split('\f');
  const body: string[] = [];
  let kept = 0;
  for (const [i, page] of pages.entries()) {
    const lines = page.split('\n');
    if (i === pages.length - 1 && !page.trim()) continue;
    const style = i > 0 ? ' text:style-name="NewPage"' : '';
    body.push(`<text:p${style}>${escapeXml(lines[0] ?? '')}</text:p>`);
    for (const line of lines.slice(1)) body.push(`<text:p>${escapeXml(line)}</text:p>`);
    for (const p of placed.filter((x) => x.page === i + 1)) {
      const file = files.get(String(p.num));
      if (!file) continue;
      const type = file.endsWith('.jpg') ? 'image/jpeg' : 'image/png';
      body.push(frame(`Picture ${++kept}`, p, await readFile(file), type));
    }
  }
  const fodt =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document ${NS} office:version="1.3" ` +
    `office:mimetype="application/vnd.oasis.opendocument.text"><office:automatic-styles>` +
    `<style:style style:name="NewPage" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/>` +
    `</style:style></office:automatic-styles><office:body><office:text>${body.join('')}` +
    `</office:text></office:body></office:document>`;
  const file = join(ctx.workDir, 'pdf-text.fodt');
  await writeFile(file, fodt);
  return { file, pictures: kept };
}

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import yazl from 'yazl';

/** The invoice's header band colour: a gradient from BAND_FROM to BAND_TO, title in white. */
export const BAND_FROM = [0x1e, 0x3a, 0x8a] as const;
export const BAND_TO = [0x25, 0x63, 0xeb] as const;

/** A font the test bundles into the upload under a family name no system font has. */
export const BUNDLED_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf';
export const bundledFontAvailable = existsSync(BUNDLED_FONT);

/** Words of the invoice table; a renderer that squeezes columns splits them ("Wi dg et"). */
export const TABLE_WORDS = ['Description', 'Quantity', 'Price', 'Widget', 'Gadget', 'Sprocket'];

const STYLE = `
@font-face { font-family: 'Invoice Face'; src: url(/fonts/invoice-face.ttf) format('truetype'); }
@page { size: A4; margin: 12mm; }
* { box-sizing: border-box; }
body { margin: 0; font-family: 'Invoice Face', monospace; color: #111; }
.band { background: linear-gradient(90deg, rgb(${BAND_FROM.join(',')}), rgb(${BAND_TO.join(',')}));
  color: #fff; padding: 28px 32px; display: flex; justify-content: space-between; align-items: center; }
.band h1 { margin: 0; font-size: 34px; letter-spacing: 1px; }
.cards { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; margin: 24px 32px; }
.card { border: 1px solid #cbd5e1; border-radius: 8px; padding: 14px 16px; }
.row { display: flex; gap: 12px; margin: 0 32px 18px; }
.row > div { flex: 1; background: #f1f5f9; padding: 10px; text-align: center; }
table { width: calc(100% - 64px); margin: 0 32px; border-collapse: collapse; }
th, td { border-bottom: 1px solid #cbd5e1; padding: 8px 10px; text-align: left; }
th:last-child, td:last-child { text-align: right; }
@media print { .screen-only { display: none; } }
@media screen { .print-only { display: none; } }
`;

/** The invoice page; with `inline`, its stylesheet and script are in the HTML itself. */
export function invoiceHtml(inline = false): string {
  const style = inline ? `<style>${STYLE}</style>` : '<link rel="stylesheet" href="css/invoice.css">';
  const script = inline
    ? `<script>${APP_JS}</script>`
    : '<script src="js/app.js"></script><script src="js/total.js"></script>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice 2026-042</title>${style}</head>
<body>
<header class="band"><h1>INVOICE 2026-042</h1>
<svg width="48" height="48" viewBox="0 0 48 48" xmlns="http://www.w3.org/2000/svg"><circle cx="24" cy="24" r="20" fill="#facc15"/></svg>
</header>
<section class="cards">
  <div class="card"><strong>Billed to</strong><br>Ada Lovelace<br>12 Analytical Row</div>
  <div class="card"><strong>From</strong><br>Difference Engines Ltd<br>Babbage Street 1</div>
</section>
<div class="row"><div>Issued 2026-11-22</div><div>Due 2026-12-22</div><div>Terms 30 days</div></div>
<table id="items">
  <thead><tr><th>Description</th><th>Quantity</th><th>Price</th></tr></thead>
  <tbody>
    <tr><td>Widget</td><td>3</td><td>120.00</td></tr>
    <tr><td>Gadget</td><td>1</td><td>75.50</td></tr>
    <tr><td>Sprocket</td><td>12</td><td>18.25</td></tr>
  </tbody>
</table>
<p class="print-only" style="margin: 18px 32px">Printed copy</p>
<p class="screen-only" style="margin: 18px 32px">Screen copy</p>
<p id="total" style="margin: 18px 32px"></p>
${script}
</body></html>
`;
}

const APP_JS = `document.getElementById('total').textContent = 'Scripted total 414.50';`;
const TOTAL_JS = `const done = document.createElement('div'); done.id = 'ready'; document.body.append(done);`;

/** Writes invoice.zip: index.html, its stylesheet, two scripts and a bundled web font. */
export async function writeInvoiceZip(dir: string): Promise<string> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(invoiceHtml()), 'index.html');
  zip.addBuffer(Buffer.from(STYLE), 'css/invoice.css');
  zip.addBuffer(Buffer.from(APP_JS), 'js/app.js');
  zip.addBuffer(Buffer.from(TOTAL_JS), 'js/total.js');
  zip.addBuffer(readFileSync(BUNDLED_FONT), 'fonts/invoice-face.ttf');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const path = join(dir, 'invoice.zip');
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

/** Writes invoice.html with everything inline (no font: a single file cannot bundle one). */
export function writeInvoiceHtml(dir: string): string {
  const path = join(dir, 'invoice.html');
  writeFileSync(path, invoiceHtml(true));
  return path;
}

/** The PDF's text layer (pdftotext, layout kept so table rows stay on one line). */
export function pdfText(pdf: string): string {
  return execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
}

/** Names of the fonts embedded in the PDF (pdffonts), subset prefixes dropped. */
export function pdfFonts(pdf: string): string[] {
  const lines = execFileSync('pdffonts', [pdf], { encoding: 'utf8' }).split('\n').slice(2);
  return lines.filter(Boolean).map((l) => (l.split(/\s+/)[0] ?? '').replace(/^[A-Z]{6}\+/, ''));
}

/** Page count and the first page's size in points (pdfinfo). */
export function pdfPages(pdf: string): { pages: number; width: number; height: number } {
  const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
  const size = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(info);
  return {
    pages: Number(/Pages:\s+(\d+)/.exec(info)?.[1]),
    width: Number(size?.[1]),
    height: Number(size?.[2]),
  };
}

/** The first page drawn at 50 dpi as a PNG next to the PDF (pdftoppm), to look at and to sample. */
export function firstPagePng(pdf: string): string {
  const base = pdf.replace(/\.pdf$/, '-page');
  execFileSync('pdftoppm', ['-r', '50', '-png', '-f', '1', '-l', '1', '-singlefile', pdf, base]);
  return `${base}.png`;
}

export interface BandReading {
  /** Colour of the first non-white pixel down the column at 60% of the width. */
  band: [number, number, number];
  /** Near-white pixels on the left half of the band's middle row: the title's letters. */
  whiteInBand: number;
}

/** Finds the header band from the top of an image and reads its colour and the white title on it. */
export async function readBand(png: string): Promise<BandReading> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => {
    const i = (y * info.width + x) * 3;
    return [data[i]!, data[i + 1]!, data[i + 2]!] as [number, number, number];
  };
  const isWhite = ([r, g, b]: number[]) => r! > 235 && g! > 235 && b! > 235;
  const x = Math.floor(info.width * 0.6);
  let top = 0;
  while (top < info.height && isWhite(at(x, top))) top++;
  let bottom = top;
  while (bottom < info.height && !isWhite(at(x, bottom))) bottom++;
  const middle = Math.floor((top + bottom) / 2);
  let whiteInBand = 0;
  for (let px = Math.floor(info.width * 0.1); px < info.width / 2; px++)
    if (isWhite(at(px, middle))) whiteInBand++;
  return { band: at(x, Math.min(top + 2, info.height - 1)), whiteInBand };
}

/** A blue like the band's: blue well above red and green. */
export function isBandBlue([r, g, b]: readonly number[]): boolean {
  return b! > 150 && b! - r! > 80 && b! - g! > 40;
}

import { createWriteStream, existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { execa } from 'execa';
import sharp from 'sharp';
import yazl from 'yazl';
import type { FormatId } from '../formats/index.js';
import { findBinary } from '../run/binary.js';

const RUN = { timeout: 60_000, stdin: 'ignore' } as const;

const XPS_NS = 'http://schemas.microsoft.com/xps/2005/06';
const XPS_PARTS = (text: string) => ({
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="fdseq" ContentType="application/vnd.ms-package.xps-fixeddocumentsequence+xml"/>' +
    '<Default Extension="fdoc" ContentType="application/vnd.ms-package.xps-fixeddocument+xml"/>' +
    '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/>' +
    '<Default Extension="ttf" ContentType="application/vnd.ms-opentype"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="R0" Type="http://schemas.microsoft.com/xps/2005/06/fixedrepresentation" Target="/FixedDocumentSequence.fdseq"/></Relationships>',
  'FixedDocumentSequence.fdseq': `<FixedDocumentSequence xmlns="${XPS_NS}"><DocumentReference Source="/Documents/1/FixedDocument.fdoc"/></FixedDocumentSequence>`,
  'Documents/1/FixedDocument.fdoc': `<FixedDocument xmlns="${XPS_NS}"><PageContent Source="/Documents/1/Pages/1.fpage"/></FixedDocument>`,
  'Documents/1/Pages/1.fpage':
    `<FixedPage xmlns="${XPS_NS}" Width="816" Height="1056" xml:lang="en-US">` +
    `<Glyphs FontUri="/Resources/Fonts/body.ttf" FontRenderingEmSize="24" OriginX="96" OriginY="120" Fill="#FF000000" UnicodeString="${text}"/></FixedPage>`,
  'Documents/1/Pages/_rels/1.fpage.rels':
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="F0" Type="http://schemas.microsoft.com/xps/2005/06/required-resource" Target="/Resources/Fonts/body.ttf"/></Relationships>',
});

/** DejaVu Sans, the face fonts-dejavu-core installs for the engines; undefined without it. */
async function bodyFont(): Promise<string | undefined> {
  const known = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  if (existsSync(known)) return known;
  const fcMatch = findBinary(['fc-match']);
  if (!fcMatch) return undefined;
  const { stdout } = await execa(fcMatch, ['-f', '%{file}', 'DejaVu Sans:style=Book'], RUN);
  return /\.ttf$/i.test(stdout) ? stdout : undefined;
}

/**
 * An XPS package as ECMA-388 lays it out and Windows' XPS writer writes it: one page whose text
 * is a `Glyphs` run with its Unicode string and its TrueType font as a part of the package.
 */
export async function writeXps(path: string, text: string, font: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of Object.entries(XPS_PARTS(text))) zip.addBuffer(Buffer.from(body), name);
  zip.addFile(font, 'Resources/Fonts/body.ttf');
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** DjVu's hidden text of a page: one line across the whole page. */
const djvuText = (text: string, width: number, height: number) =>
  `(page 0 0 ${width} ${height} (line 0 0 ${width} ${height} "${text}"))\n`;

/**
 * Seeds of the page formats no engine of ours writes, made where their tools are installed (with
 * the engine that reads them): DjVu by DjVuLibre's c44 from the picture seed, its words put in
 * its hidden text layer by djvused as OCR software does; XPS as above, in DejaVu Sans.
 */
export async function writePageSeeds(dir: string, png: string, text: string): Promise<Map<FormatId, string>> {
  const seeds = new Map<FormatId, string>();
  const c44 = findBinary(['c44']);
  const djvused = findBinary(['djvused']);
  if (c44 && djvused) {
    const jpg = join(dir, 'seed-page.jpg');
    const { width, height } = await sharp(png).jpeg().toFile(jpg);
    const djvu = join(dir, 'seed.djvu');
    await execa(c44, [jpg, djvu], RUN);
    const layer = join(dir, 'seed-djvu-text.txt');
    await writeFile(layer, djvuText(text, width, height));
    await execa(djvused, [djvu, '-e', `select 1; set-txt ${layer}`, '-s'], RUN);
    seeds.set('djvu', djvu);
  }
  const font = await bodyFont();
  if (font) {
    const xps = join(dir, 'seed.xps');
    await writeXps(xps, text, font);
    seeds.set('xps', xps);
  }
  return seeds;
}

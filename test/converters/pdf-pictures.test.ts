// PDF to DOCX keeps its pictures, also when the layout import gives way to the PDF's text (a
// long PDF): the pictures follow their page's text. An output without them says so in its checks.
import { execFileSync } from 'node:child_process';
import { copyFileSync, createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { LAYOUT_PAGE_BUDGET } from '../../converters/libreoffice/pdf-import.js';
import libreoffice from '../../converters/libreoffice.js';
import { describeChecks } from '../../src/engine/checks.js';
import { measureChecks } from '../../src/run/measure-tools.js';
import { convertWith, fileScopedDir, zipEntries } from '../helpers/office.js';
import { stepContext, tempDir } from '../helpers/step.js';

const tmp = fileScopedDir('fileconv-pdf-pictures-');
afterAll(() => tmp.cleanup());

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"';

const picture = (data: Buffer, type: string) =>
  `<text:p><draw:frame text:anchor-type="as-char" svg:width="2in" svg:height="1.5in"><draw:image draw:mime-type="${type}"><office:binary-data>${data.toString('base64')}</office:binary-data></draw:image></draw:frame></text:p>`;

/** Pages one past the layout budget, a PNG on page 1 and a JPEG on page 3. */
async function longDocument(): Promise<string> {
  const pixels = (r: number) =>
    sharp({ create: { width: 160, height: 120, channels: 3, background: { r, g: 90, b: 40 } } });
  const png = await pixels(200).png().toBuffer();
  const jpg = await pixels(30).jpeg().toBuffer();
  const pages = Array.from({ length: LAYOUT_PAGE_BUDGET + 1 }, (_, i) => {
    const style = i ? ' text:style-name="Break"' : '';
    const text = `<text:p${style}>Harbour ledger page ${i + 1} lists tide tables and berths</text:p>`;
    return text + (i === 0 ? picture(png, 'image/png') : i === 2 ? picture(jpg, 'image/jpeg') : '');
  });
  const fodt = `<?xml version="1.0" encoding="UTF-8"?><office:document ${NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text"><office:automatic-styles><style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles><office:body><office:text>${pages.join('')}</office:text></office:body></office:document>`;
  const path = join(tmp.dir, 'ledger.fodt');
  writeFileSync(path, fodt);
  return path;
}

const pictureObjects = (pdf: string) =>
  execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /^\s*\d+\s+\d+\s+image\b/.test(l)).length;

let pdf: string;
beforeAll(async () => {
  const { files } = await convertWith(libreoffice, 'fodt', 'pdf', await longDocument());
  // The step's folders go after each test; the PDF serves both.
  pdf = join(tmp.dir, 'ledger.pdf');
  copyFileSync(files[0]!, pdf);
}, 120_000);

describe('pdf to docx pictures', () => {
  it('keeps every picture when a long PDF is made from its text', { timeout: 180_000 }, async () => {
    expect(pictureObjects(pdf)).toBe(2);
    const ctx = stepContext();
    const edge = libreoffice.edges.find((e) => e.from === 'pdf' && e.to === 'docx')!;
    const { files } = await libreoffice.run({ edge, input: pdf, outDir: tempDir(), options: {} }, ctx);
    const docx = files[0]!;
    expect(ctx.logs.join('\n')).toMatch(/made from the PDF's text and its 2 pictures as flowing paragraphs/);
    const media = [...(await zipEntries(docx)).keys()].filter((n) => n.startsWith('word/media/'));
    expect(media).toHaveLength(2);
    const [checks] = await measureChecks({ from: 'pdf', to: 'docx', source: pdf, outputs: [docx] });
    expect(checks).toMatchObject({ images: 2, source_images: 2 });
    expect(checks!.words_kept).toBeGreaterThanOrEqual(0.95);
  });

  it("says so when a DOCX holds none of a PDF's pictures", async () => {
    const bare = join(tmp.dir, 'bare.docx');
    const zip = new yazl.ZipFile();
    zip.addBuffer(
      Buffer.from(
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Harbour ledger</w:t></w:r></w:p></w:body></w:document>',
      ),
      'word/document.xml',
    );
    zip.end();
    await new Promise<void>((resolve) => zip.outputStream.pipe(createWriteStream(bare)).on('close', resolve));
    const [checks] = await measureChecks({ from: 'pdf', to: 'docx', source: pdf, outputs: [bare] });
    expect(checks).toMatchObject({ images: 0, source_images: 2 });
    expect(describeChecks(checks!)).toContain('0 of 2 pictures');
  });
});

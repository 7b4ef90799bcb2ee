// DOCX and ODT to text and HTML read every text container: text boxes, shapes, headers, footers,
// footnotes and comments. The documents are written by LibreOffice from a flat ODT made here.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import pandoc from '../../converters/pandoc.js';
import { measureChecks } from '../../src/run/measure-tools.js';
import { convertWith, fileScopedDir } from '../helpers/office.js';

const tmp = fileScopedDir('fileconv-containers-');
afterAll(() => tmp.cleanup());

const NS = [
  'office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
]
  .map((n) => `xmlns:${n}`)
  .join(' ');
const FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${NS} xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"/><style:header-style/><style:footer-style/></style:page-layout></office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"><style:header><text:p>Lighthouse keeper</text:p></style:header><style:footer><text:p>Quayside almanac</text:p></style:footer></style:master-page></office:master-styles>
<office:body><office:text>
<text:p>Tides rise<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Barnacles cling</text:p></text:note-body></text:note> twice daily.<office:annotation><dc:creator>Ed</dc:creator><text:p>Seagulls nest</text:p></office:annotation></text:p>
<text:p><draw:frame draw:name="Box" text:anchor-type="paragraph" svg:width="6cm" svg:height="2cm"><draw:text-box><text:p>Anchors weigh plenty</text:p></draw:text-box></draw:frame>Ropes coil.</text:p>
<text:p><draw:custom-shape text:anchor-type="paragraph" svg:width="5cm" svg:height="2cm" svg:x="8cm" svg:y="0cm"><text:p>Compass points north</text:p><draw:enhanced-geometry draw:type="rectangle" svg:viewBox="0 0 21600 21600"/></draw:custom-shape>Sails fill.</text:p>
</office:text></office:body></office:document>`;

const WORDS = [
  'Lighthouse keeper',
  'Quayside almanac',
  'Barnacles cling',
  'Seagulls nest',
  'Anchors weigh plenty',
  'Compass points north',
  'Sails fill',
];

const docs: Record<'docx' | 'odt', string> = { docx: '', odt: '' };
beforeAll(async () => {
  const fodt = join(tmp.dir, 'harbour.fodt');
  writeFileSync(fodt, FODT);
  for (const to of ['docx', 'odt'] as const) {
    const { files } = await convertWith(libreoffice, 'fodt', to, fodt);
    docs[to] = join(tmp.dir, `harbour.${to}`);
    copyFileSync(files[0]!, docs[to]);
  }
}, 120_000);

const occurrences = (text: string, phrase: string) => text.split(phrase).length - 1;

describe('text containers to text and HTML', () => {
  for (const from of ['docx', 'odt'] as const)
    for (const to of ['txt', 'html'] as const)
      it(`${from} to ${to} reads boxes, shapes, headers, footers, notes and comments once`, async () => {
        const { files } = await convertWith(pandoc, from, to, docs[from]);
        const text = readFileSync(files[0]!, 'utf8').replace(/\s+/g, ' ');
        for (const phrase of WORDS) expect(occurrences(text, phrase), phrase).toBe(1);
        expect(text.indexOf('Anchors weigh')).toBeGreaterThan(text.indexOf('Ropes coil'));
        const [checks] = await measureChecks({ from, to, source: docs[from], outputs: [files[0]!] });
        // At the floor, not 1: a note's mark joins the word before it in one of the two texts
        // ("tides1" against "tides [1]").
        expect(checks!.words_kept).toBeGreaterThanOrEqual(0.95);
      });

  it('measures a text that lost the boxes, headers and comments as a loss', async () => {
    const bare = join(tmp.dir, 'bare.txt');
    // pandoc on its own reads the body and the footnotes only.
    execFileSync('pandoc', ['-f', 'docx', '-t', 'plain', '-o', bare, docs.docx]);
    expect(readFileSync(bare, 'utf8')).not.toContain('Anchors');
    const [checks] = await measureChecks({ from: 'docx', to: 'txt', source: docs.docx, outputs: [bare] });
    expect(checks!.words_kept).toBeLessThan(0.7);
  });
});

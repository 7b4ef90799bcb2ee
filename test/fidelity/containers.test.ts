// What the measure reads from office containers: the text and pictures a reader is shown, not
// everything the package holds. The containers are written here part by part, so each rule is
// exercised on exactly the XML that triggers it.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { countFile } from '../../src/fidelity/counts.js';
import { textOf, wordCounts } from '../../src/fidelity/text.js';
import { fileScopedDir } from '../helpers/office.js';

const fixtures = fileScopedDir('fileconv-fidelity-zip-');
afterAll(() => fixtures.cleanup());

/** No measuring tool is needed for containers: they are read in-process. */
const noTools = async () => undefined;

async function container(name: string, parts: Record<string, string | Buffer>): Promise<string> {
  const path = join(fixtures.dir, name);
  const zip = new yazl.ZipFile();
  for (const [part, body] of Object.entries(parts)) zip.addBuffer(Buffer.from(body), part);
  zip.end();
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
  });
  return path;
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const rels = (...links: [type: string, target: string][]) =>
  `<Relationships>${links
    .map(
      ([type, target], i) =>
        `<Relationship Id="rId${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`,
    )
    .join('')}</Relationships>`;
const PNG_A = Buffer.from('picture A');
const PNG_B = Buffer.from('picture B');

describe('office containers as a reader sees them', () => {
  it("reads a DOCX's runs, its text box once, its header, no offsets or field codes", async () => {
    const body = `<w:document ${W}><w:body>
      <w:p><w:r><w:drawing><wp:anchor><wp:positionH><wp:posOffset>-190500</wp:posOffset></wp:positionH>
        <mc:AlternateContent><mc:Choice><wps:txbx><w:p><w:r><w:t>Harbour</w:t></w:r><w:r><w:t>master</w:t></w:r></w:p></wps:txbx></mc:Choice>
        <mc:Fallback><v:textbox><w:p><w:r><w:t>Harbourmaster</w:t></w:r></w:p></v:textbox></mc:Fallback></mc:AlternateContent>
      </wp:anchor></w:drawing></w:r></w:p>
      <w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>3</w:t></w:r></w:p>
    </w:body></w:document>`;
    const docx = await container('shapes.docx', {
      'word/document.xml': body,
      'word/header1.xml': `<w:hdr ${W}><w:p><w:r><w:t>Confidential</w:t></w:r></w:p></w:hdr>`,
    });
    const words = wordCounts((await textOf(docx, 'docx', noTools)) ?? '');
    expect(Object.fromEntries(words)).toEqual({ harbourmaster: 1, page: 1, '3': 1, confidential: 1 });
  });

  it("counts a presentation's pictures that its slides show, each distinct file once", async () => {
    const pptx = await container('deck.pptx', {
      'ppt/slides/slide1.xml': '<p:sld/>',
      'ppt/slides/_rels/slide1.xml.rels': rels(
        ['slideLayout', '../slideLayouts/slideLayout1.xml'],
        ['image', '../media/image1.png'],
        ['image', '../media/image4.png'],
      ),
      'ppt/slideLayouts/_rels/slideLayout1.xml.rels': rels([
        'slideMaster',
        '../slideMasters/slideMaster1.xml',
      ]),
      'ppt/slideLayouts/_rels/slideLayout2.xml.rels': rels(
        ['slideMaster', '../slideMasters/slideMaster1.xml'],
        ['image', '../media/image2.png'],
      ),
      'ppt/slideMasters/_rels/slideMaster1.xml.rels': rels(
        ['slideLayout', '../slideLayouts/slideLayout1.xml'],
        ['slideLayout', '../slideLayouts/slideLayout2.xml'],
        ['image', '../media/image3.png'],
      ),
      // image4 is a copy of image1; image2 is only on a layout no slide uses
      'ppt/media/image1.png': PNG_A,
      'ppt/media/image2.png': Buffer.from('unused picture'),
      'ppt/media/image3.png': PNG_B,
      'ppt/media/image4.png': PNG_A,
    });
    expect((await countFile(pptx, 'pptx', noTools)).images).toBe(2);
  });

  it("reads a workbook's cells as shown: strings by reference, no formulas, no collapsed rows", async () => {
    const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const xlsx = await container('book.xlsx', {
      'xl/sharedStrings.xml': `<sst ${ns}><si><t>Berth</t></si><si><r><t>No</t></r><r><t>rth</t></r><rPh><t>ノース</t></rPh></si><si><t>unused</t></si><si><t>dredged</t></si></sst>`,
      'xl/worksheets/sheet1.xml': `<worksheet ${ns}><sheetData>
        <row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"/><c r="C1" t="inlineStr"><is><t>Ships</t></is></c></row>
        <row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2"><f>SUM(C2:C9)</f><v>42</v></c></row>
        <row r="3" hidden="1" outlineLevel="1"><c r="A3" t="s"><v>3</v></c></row>
      </sheetData></worksheet>`,
    });
    const words = wordCounts((await textOf(xlsx, 'xlsx', noTools)) ?? '');
    expect(Object.fromEntries(words)).toEqual({ berth: 1, ships: 1, north: 1, '42': 1 });
  });

  it('leaves drawings out of the pictures a PDF is asked to keep', async () => {
    const docx = await container('pictures.docx', {
      'word/document.xml': `<w:document ${W}/>`,
      'word/media/image1.png': PNG_A,
      'word/media/image2.png': PNG_A,
      'word/media/image3.emf': PNG_B,
    });
    expect((await countFile(docx, 'docx', noTools)).images).toBe(2);
    expect((await countFile(docx, 'docx', noTools, { rasterOnly: true })).images).toBe(1);
  });
});

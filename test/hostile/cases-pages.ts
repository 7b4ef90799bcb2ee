import { truncatedFixture, zip } from './build.js';
import type { Canary, HostileCase } from './harness.js';

const XPS = 'http://schemas.microsoft.com/xps/2005/06';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** An XPS package whose one page is `page`, and whose document sequence points at `document`. */
function xps(page: string, document = '/Documents/1/FixedDocument.fdoc', extra: Record<string, string> = {}) {
  return zip(
    {
      '[Content_Types].xml':
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/></Types>',
      '_rels/.rels': `<Relationships xmlns="${RELS}"><Relationship Id="R0" Type="${XPS}/fixedrepresentation" Target="/FixedDocumentSequence.fdseq"/></Relationships>`,
      'FixedDocumentSequence.fdseq': `<FixedDocumentSequence xmlns="${XPS}"><DocumentReference Source="${document}"/></FixedDocumentSequence>`,
      'Documents/1/FixedDocument.fdoc': `<FixedDocument xmlns="${XPS}"><PageContent Source="/Documents/1/Pages/1.fpage"/></FixedDocument>`,
      'Documents/1/Pages/1.fpage': `<FixedPage xmlns="${XPS}" Width="816" Height="1056">${page}</FixedPage>`,
      ...extra,
    },
    [],
    // A link in the package to the secret file, which a reader must take as bytes, not follow.
    Object.fromEntries(Object.keys(extra).map((name) => [name, 0o120777])),
  );
}

const imageBrush = (source: string) =>
  `<Path Data="M 0,0 L 100,0 100,100 0,100 Z"><Path.Fill><ImageBrush ImageSource="${source}" ` +
  'Viewbox="0,0,10,10" ViewboxUnits="Absolute" Viewport="0,0,100,100" ViewportUnits="Absolute"/></Path.Fill></Path>';

/** MuPDF on XPS and DjVuLibre on DjVu: files outside the package, links, climbing paths, cut files. */
export const pageCases: HostileCase[] = [
  {
    name: 'mutool: XPS drawing the secret files by URL',
    attack:
      'an ImageBrush and a Glyphs font on file:// URLs of the secret picture and text, and a picture on the canary URL',
    from: 'xps',
    to: 'pdf',
    engine: 'mutool',
    make: (c: Canary) =>
      xps(
        imageBrush(`file://${c.files.png}`) +
          imageBrush(`${c.url}x.png`) +
          `<Glyphs FontUri="file://${c.files.txt}" FontRenderingEmSize="24" OriginX="96" OriginY="120" Fill="#FF000000" UnicodeString="x"/>`,
      ),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
  {
    name: 'mutool: XPS whose parts climb out of the package or link to the secret',
    attack:
      'a document reference to ../../ the secret file, and a page picture that is a symbolic link to the secret picture',
    from: 'xps',
    to: 'txt',
    engine: 'mutool',
    make: (c: Canary) =>
      xps(imageBrush('/Resources/linked.png'), `/../../../../../..${c.files.xml}`, {
        'Resources/linked.png': c.files.png,
      }),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED', 'NEEDS_OCR'] },
  },
  {
    name: 'djvulibre: a DjVu cut short',
    attack: 'the first 200 bytes of a DjVu page (its form header claims the whole length)',
    from: 'djvu',
    to: 'pdf',
    engine: 'djvulibre',
    make: () => truncatedFixture('documents/page.djvu', 200),
    allowed: { output: true, codes: ['MALFORMED_DOCUMENT', 'CONVERT_FAILED'] },
  },
];

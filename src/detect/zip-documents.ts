import { CONFIDENCE, type Finding } from './types.js';

/** The `mimetype` entry of an ODF package (and of its OpenOffice.org 1.0 forerunners and EPUB). */
export const MIMETYPE_IDS: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.text-master': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/vnd.oasis.opendocument.graphics': 'odg',
  'application/vnd.oasis.opendocument.graphics-template': 'odg',
  'application/vnd.oasis.opendocument.formula': 'odf',
  'application/vnd.oasis.opendocument.formula-template': 'odf',
  'application/vnd.oasis.opendocument.base': 'odb',
  'application/vnd.sun.xml.base': 'odb',
  'application/vnd.sun.xml.writer': 'sxw',
  'application/vnd.sun.xml.writer.template': 'sxw',
  'application/vnd.sun.xml.calc': 'sxc',
  'application/vnd.sun.xml.calc.template': 'sxc',
  'application/vnd.sun.xml.impress': 'sxi',
  'application/vnd.sun.xml.impress.template': 'sxi',
  'application/vnd.sun.xml.draw': 'sxd',
  'application/vnd.sun.xml.draw.template': 'sxd',
  'application/epub+zip': 'epub',
};

/**
 * The content type of an OPC package's main part ([Content_Types].xml, ECMA-376 part 2), which
 * names the format wherever the part is kept: writers may put it at any path the package's
 * relationships point to, so this holds where the default folder names (`word/`, `xl/`) do not.
 */
const MAIN_PART_IDS: Record<string, string> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml': 'docx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml': 'docx',
  'application/vnd.ms-word.document.macroenabled.main+xml': 'docm',
  'application/vnd.ms-word.template.macroenabledtemplate.main+xml': 'docm',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml': 'xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml': 'xlsx',
  'application/vnd.ms-excel.sheet.macroenabled.main+xml': 'xlsm',
  'application/vnd.ms-excel.template.macroenabled.main+xml': 'xlsm',
  'application/vnd.ms-excel.addin.macroenabled.main+xml': 'xlsm',
  'application/vnd.ms-excel.sheet.binary.macroenabled.main': 'xlsb',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml': 'pptx',
  'application/vnd.openxmlformats-officedocument.presentationml.template.main+xml': 'pptx',
  'application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml': 'ppsx',
  'application/vnd.ms-powerpoint.presentation.macroenabled.main+xml': 'pptm',
  'application/vnd.ms-powerpoint.template.macroenabled.main+xml': 'pptm',
  'application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml': 'ppsx',
  'application/vnd.ms-visio.drawing.main+xml': 'vsdx',
  'application/vnd.ms-visio.drawing.macroenabled.main+xml': 'vsdx',
  'application/vnd.ms-visio.stencil.main+xml': 'vsdx',
  'application/vnd.ms-visio.stencil.macroenabled.main+xml': 'vsdx',
  'application/vnd.ms-visio.template.main+xml': 'vsdx',
  'application/vnd.ms-visio.template.macroenabled.main+xml': 'vsdx',
  'application/vnd.ms-package.xps-fixeddocumentsequence+xml': 'xps',
  'application/vnd.ms-package.3dmanufacturing-3dmodel+xml': '3mf',
};

/**
 * The format an OPC package's content types name, from the text of `[Content_Types].xml`.
 * LibreOffice writes a slide show (ppsx) with the presentation's content type, so a presentation
 * is one of the two and the declared name chooses.
 */
export function findingFromContentTypes(xml: string): Finding | undefined {
  for (const m of xml.matchAll(/ContentType\s*=\s*["']([^"']+)["']/gi)) {
    const id = MAIN_PART_IDS[m[1]!.trim().toLowerCase()];
    if (id === 'pptx') return { id, confidence: CONFIDENCE.CONTAINER, oneOf: ['pptx', 'ppsx'] };
    if (id) return { id, confidence: CONFIDENCE.CONTAINER };
  }
  return undefined;
}

const IMAGE_NAME = /\.(jpe?g|png|gif|webp|bmp|tiff?|avif|jxl)$/i;

/** Reads the first bytes of a named entry as text ('' when it cannot). */
export type EntryText = (name: string) => Promise<string>;

/**
 * Packages told apart by the names of their entries (and, for Apple's iWork '09 formats, the
 * root element of `index.xml`): Java and Android archives, KMZ, comic books, XPS, 3MF, iWork.
 */
export async function classifyPackageNames(names: string[], text: EntryText): Promise<Finding | undefined> {
  const has = (n: string) => names.includes(n);
  const sure = (id: string, version?: string): Finding => ({
    id,
    confidence: CONFIDENCE.CONTAINER,
    ...(version ? { version } : {}),
  });
  if (has('AndroidManifest.xml') && (has('classes.dex') || has('resources.arsc'))) return sure('apk');
  if (has('META-INF/MANIFEST.MF') && names.some((n) => n.endsWith('.class'))) return sure('jar');
  if (names.some((n) => n.endsWith('.fdseq'))) return sure('xps');
  if (has('3D/3dmodel.model')) return sure('3mf');
  if (has('index.apxl') || has('index.apxl.gz')) return sure('key', "Keynote '09 or earlier");
  if (
    has('index.xml') &&
    (has('buildVersionHistory.plist') || names.some((n) => n.startsWith('QuickLook/')))
  ) {
    const root = /<(\w+):document\b/.exec(await text('index.xml'))?.[1];
    if (root === 'sl') return sure('pages', "Pages '09 or earlier");
    if (root === 'ls') return sure('numbers', "Numbers '09 or earlier");
  }
  if (has('Index/Document.iwa') || has('Index.zip')) return iwork2013(names);
  if (names.some((n) => /^[^/]+\.kml$/i.test(n))) return sure('kmz');
  const files = names.filter((n) => !n.endsWith('/') && !n.startsWith('__MACOSX/'));
  // ComicInfo.xml is the metadata comic readers and taggers write; a ZIP of pictures alone is a
  // comic book only when declared one (the report then takes the declared name).
  if (has('ComicInfo.xml') && files.some((n) => IMAGE_NAME.test(n))) return sure('cbz');
  if (files.length > 0 && files.every((n) => IMAGE_NAME.test(n)))
    return { id: 'zip', confidence: CONFIDENCE.CONTAINER, oneOf: ['zip', 'cbz'] };
  return undefined;
}

/**
 * Pages, Numbers and Keynote since 2013 keep their content in IWA parts under `Index/` whose names
 * only hint at the application: slides are Keynote's, table tiles are what a spreadsheet is made
 * of (a Pages document with a table has them too). The declared name chooses among the three
 * when it is one of them.
 */
function iwork2013(names: string[]): Finding {
  const oneOf = ['pages', 'numbers', 'key'];
  const version = 'iWork 2013 or later';
  const id = names.some((n) => /^Index\/(Master)?Slide/.test(n))
    ? 'key'
    : names.some((n) => /^Index\/Tables\/(Tile|HeaderStorageBucket)/.test(n))
      ? 'numbers'
      : 'pages';
  return { id, confidence: CONFIDENCE.CONTAINER, version, oneOf };
}

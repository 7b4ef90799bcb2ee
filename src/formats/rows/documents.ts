import type { FormatRow } from '../types.js';

// Office, desktop-publishing, mail and ebook formats beyond OOXML and ODF that people exchange.
export const DOCUMENT_ROWS: FormatRow[] = [
  [
    'docm',
    'Word macro-enabled document',
    'document',
    'application/vnd.ms-word.document.macroenabled.12',
    ['docm', 'dotm'],
  ],
  [
    'xlsm',
    'Excel macro-enabled workbook',
    'spreadsheet',
    'application/vnd.ms-excel.sheet.macroenabled.12',
    ['xlsm', 'xltm'],
  ],
  [
    'pptm',
    'PowerPoint macro-enabled presentation',
    'presentation',
    'application/vnd.ms-powerpoint.presentation.macroenabled.12',
    ['pptm', 'potm'],
  ],
  ['odg', 'OpenDocument drawing', 'image', 'application/vnd.oasis.opendocument.graphics', ['odg', 'otg']],
  ['fodt', 'Flat OpenDocument text', 'document', 'application/vnd.oasis.opendocument.flat.text'],
  [
    'fods',
    'Flat OpenDocument spreadsheet',
    'spreadsheet',
    'application/vnd.oasis.opendocument.flat.spreadsheet',
  ],
  [
    'fodp',
    'Flat OpenDocument presentation',
    'presentation',
    'application/vnd.oasis.opendocument.flat.presentation',
  ],
  ['abw', 'AbiWord document', 'document', 'application/x-abiword', ['abw', 'zabw'], ['abiword']],
  ['pages', 'Apple Pages document', 'document', 'application/vnd.apple.pages'],
  ['numbers', 'Apple Numbers spreadsheet', 'spreadsheet', 'application/vnd.apple.numbers'],
  [
    'key',
    'Apple Keynote presentation',
    'presentation',
    'application/vnd.apple.keynote',
    ['key'],
    ['keynote'],
  ],
  ['vsd', 'Visio drawing', 'document', 'application/vnd.visio', ['vsd', 'vss', 'vst'], ['visio']],
  [
    'vsdx',
    'Visio drawing (OOXML)',
    'document',
    'application/vnd.ms-visio.drawing.main+xml',
    ['vsdx', 'vssx', 'vstx'],
  ],
  ['xps', 'XPS document', 'document', 'application/vnd.ms-xpsdocument', ['xps', 'oxps'], ['oxps']],
  ['djvu', 'DjVu document', 'document', 'image/vnd.djvu', ['djvu', 'djv'], ['djv']],
  ['eml', 'E-mail message', 'document', 'message/rfc822', ['eml', 'mime'], ['email']],
  ['msg', 'Outlook message', 'document', 'application/vnd.ms-outlook'],
  ['mhtml', 'MHTML web archive', 'document', 'multipart/related', ['mhtml', 'mht'], ['mht']],
  ['ipynb', 'Jupyter notebook', 'document', 'application/x-ipynb+json', ['ipynb'], ['jupyter']],
  ['docbook', 'DocBook document', 'document', 'application/docbook+xml', ['dbk', 'docbook']],
  // ebooks that calibre reads
  ['lit', 'Microsoft Reader ebook', 'ebook', 'application/x-ms-reader'],
  ['cbz', 'Comic book archive (ZIP)', 'ebook', 'application/vnd.comicbook+zip'],
];

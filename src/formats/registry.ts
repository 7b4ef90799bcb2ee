import { BINARY_ROWS } from './rows/binary.js';
import { DATA_ROWS } from './rows/data.js';
import { DOCUMENT_ROWS } from './rows/documents.js';
import { MEDIA_ROWS } from './rows/media.js';
import { TEXT_ROWS } from './rows/text.js';
import type { FormatDef, FormatRow } from './types.js';

// One row a format: id, name, family, media type, extensions (default [id]), aliases.
const ROWS: FormatRow[] = [
  // documents
  ['pdf', 'PDF document', 'document', 'application/pdf'],
  ['pdfa', 'PDF/A archival document', 'document', 'application/pdf', ['pdf'], ['pdf-a']],
  ['doc', 'Word 97-2003 document', 'document', 'application/msword', ['doc', 'dot']],
  [
    'docx',
    'Word document',
    'document',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ['docx', 'dotx'],
  ],
  ['odt', 'OpenDocument text', 'document', 'application/vnd.oasis.opendocument.text', ['odt', 'ott']],
  ['rtf', 'Rich Text Format', 'document', 'application/rtf'],
  ['html', 'HTML page', 'document', 'text/html', ['html', 'htm', 'xhtml'], ['htm', 'xhtml']],
  ['ps', 'PostScript', 'document', 'application/postscript', ['ps'], ['postscript']],
  ['eps', 'Encapsulated PostScript', 'image', 'application/postscript', ['eps', 'epsf']],
  // text
  ['txt', 'Plain text', 'text', 'text/plain', ['txt', 'text', 'log'], ['text', 'plain']],
  ['md', 'Markdown', 'text', 'text/markdown', ['md', 'markdown', 'mdown'], ['markdown']],
  ['rst', 'reStructuredText', 'text', 'text/x-rst', ['rst'], ['restructuredtext']],
  ['org', 'Org mode', 'text', 'text/org', ['org'], ['orgmode']],
  ['tex', 'LaTeX', 'text', 'application/x-tex', ['tex', 'latex'], ['latex']],
  // spreadsheets
  ['xls', 'Excel 97-2003 workbook', 'spreadsheet', 'application/vnd.ms-excel'],
  [
    'xlsx',
    'Excel workbook',
    'spreadsheet',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ],
  ['ods', 'OpenDocument spreadsheet', 'spreadsheet', 'application/vnd.oasis.opendocument.spreadsheet'],
  ['csv', 'Comma-separated values', 'spreadsheet', 'text/csv'],
  ['tsv', 'Tab-separated values', 'spreadsheet', 'text/tab-separated-values', ['tsv', 'tab']],
  // presentations
  ['ppt', 'PowerPoint 97-2003 presentation', 'presentation', 'application/vnd.ms-powerpoint'],
  [
    'pptx',
    'PowerPoint presentation',
    'presentation',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
  ['odp', 'OpenDocument presentation', 'presentation', 'application/vnd.oasis.opendocument.presentation'],
  // images
  ['png', 'PNG image', 'image', 'image/png'],
  ['jpg', 'JPEG image', 'image', 'image/jpeg', ['jpg', 'jpeg', 'jpe', 'jfif'], ['jpeg', 'jpe', 'jfif']],
  ['gif', 'GIF image', 'image', 'image/gif'],
  ['webp', 'WebP image', 'image', 'image/webp'],
  ['avif', 'AVIF image', 'image', 'image/avif'],
  ['tiff', 'TIFF image', 'image', 'image/tiff', ['tiff', 'tif'], ['tif']],
  ['bmp', 'Bitmap image', 'image', 'image/bmp', ['bmp', 'dib']],
  ['heic', 'HEIC image', 'image', 'image/heic', ['heic', 'heif'], ['heif']],
  ['svg', 'SVG vector image', 'image', 'image/svg+xml'],
  ['ico', 'Windows icon', 'image', 'image/x-icon'],
  ['psd', 'Photoshop image', 'image', 'image/vnd.adobe.photoshop'],
  // audio
  ['mp3', 'MP3 audio', 'audio', 'audio/mpeg'],
  ['wav', 'WAV audio', 'audio', 'audio/wav', ['wav', 'wave'], ['wave']],
  ['ogg', 'Ogg Vorbis audio', 'audio', 'audio/ogg', ['ogg', 'oga'], ['oga', 'vorbis']],
  ['flac', 'FLAC audio', 'audio', 'audio/flac'],
  ['m4a', 'MPEG-4 audio', 'audio', 'audio/mp4'],
  ['aac', 'AAC audio (ADTS)', 'audio', 'audio/aac'],
  ['opus', 'Opus audio', 'audio', 'audio/opus'],
  // video
  ['mp4', 'MPEG-4 video', 'video', 'video/mp4', ['mp4', 'm4v']],
  ['webm', 'WebM video', 'video', 'video/webm'],
  ['mkv', 'Matroska video', 'video', 'video/x-matroska'],
  ['mov', 'QuickTime video', 'video', 'video/quicktime', ['mov', 'qt'], ['quicktime']],
  ['avi', 'AVI video', 'video', 'video/x-msvideo'],
  // data
  ['json', 'JSON', 'data', 'application/json'],
  ['jsonl', 'JSON Lines', 'data', 'application/jsonl', ['jsonl', 'ndjson'], ['ndjson']],
  ['yaml', 'YAML', 'data', 'application/yaml', ['yaml', 'yml'], ['yml']],
  ['toml', 'TOML', 'data', 'application/toml'],
  ['xml', 'XML', 'data', 'application/xml'],
  // ebooks
  ['epub', 'EPUB ebook', 'ebook', 'application/epub+zip'],
  ['mobi', 'Mobipocket ebook', 'ebook', 'application/x-mobipocket-ebook', ['mobi', 'prc']],
  ['azw3', 'Kindle KF8 ebook', 'ebook', 'application/vnd.amazon.ebook', ['azw3', 'azw']],
  ['fb2', 'FictionBook', 'ebook', 'application/x-fictionbook+xml'],
  // archives
  ['zip', 'ZIP archive', 'archive', 'application/zip'],
  // A web page with its assets: a ZIP whose top level (or single top folder) holds index.html.
  // After zip, so the media type and the extension keep naming a plain ZIP.
  ['htmlzip', 'HTML page with assets (ZIP)', 'document', 'application/zip', ['zip'], ['html-zip']],
  ['gz', 'gzip file', 'archive', 'application/gzip', ['gz', 'gzip'], ['gzip']],
  ['tar', 'tar archive', 'archive', 'application/x-tar'],
  ['7z', '7-Zip archive', 'archive', 'application/x-7z-compressed'],
  // code (reported as their own ids where cheap to tell; they are text underneath)
  ['js', 'JavaScript', 'code', 'text/javascript', ['js', 'mjs', 'cjs'], ['javascript']],
  ['ts', 'TypeScript', 'code', 'text/x-typescript', ['ts', 'mts', 'cts'], ['typescript']],
  ['py', 'Python', 'code', 'text/x-python', ['py'], ['python']],
  ['sh', 'Shell script', 'code', 'text/x-shellscript', ['sh', 'bash'], ['shell', 'bash']],
  ['css', 'CSS', 'code', 'text/css'],
  ['sql', 'SQL', 'code', 'application/sql'],
  // C headers are read as C: a `.h` of C++ code is detected as cpp, which agrees (see detect/agree.ts).
  ['c', 'C source', 'code', 'text/x-c', ['c', 'h'], ['h']],
  [
    'cpp',
    'C++ source',
    'code',
    'text/x-c++',
    ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h++'],
    ['c++', 'cxx', 'cc', 'hpp'],
  ],
  ['go', 'Go source', 'code', 'text/x-go'],
  ['rs', 'Rust source', 'code', 'text/x-rust', ['rs'], ['rust']],
  ['java', 'Java source', 'code', 'text/x-java'],
  ['rb', 'Ruby script', 'code', 'text/x-ruby', ['rb', 'rake', 'gemspec'], ['ruby']],
  ['php', 'PHP script', 'code', 'application/x-httpd-php', ['php', 'phtml'], []],
  ['pl', 'Perl script', 'code', 'text/x-perl', ['pl', 'pm'], ['perl']],
  ['lua', 'Lua script', 'code', 'text/x-lua'],
  ['ini', 'INI configuration', 'code', 'text/x-ini', ['ini', 'conf', 'cfg', 'cnf'], ['conf', 'cfg']],
  ['dockerfile', 'Dockerfile', 'code', 'text/x-dockerfile', ['dockerfile'], ['docker', 'containerfile']],
  ['makefile', 'Makefile', 'code', 'text/x-makefile', ['mk', 'mak', 'make'], ['make', 'gnumakefile']],
  // unknown bytes
  ['bin', 'Unknown binary data', 'data', 'application/octet-stream', ['bin'], ['octet-stream']],
  // The formats people exchange beyond these, one file a family. They come after the rows above,
  // so an extension or media type both name (`ts`, `audio/mpeg`) keeps resolving to the older row.
  ...DOCUMENT_ROWS,
  ...DATA_ROWS,
  ...TEXT_ROWS,
  ...MEDIA_ROWS,
  ...BINARY_ROWS,
];

/** Whole file names that name a format without an extension (matched case-insensitively). */
const FILENAMES: Record<string, string[]> = {
  dockerfile: ['dockerfile', 'containerfile'],
  makefile: ['makefile', 'gnumakefile'],
};

// Profiles of a format that detection reports as the base format's bytes (a .zip named file that
// holds a web page is still a ZIP; PDF/A is still a PDF).
const DETECTS_AS: Record<string, string> = { pdfa: 'pdf', htmlzip: 'zip' };

export const FORMATS: readonly FormatDef[] = ROWS.map(([id, name, family, mime, ext, aliases]) => ({
  id,
  name,
  family,
  mime,
  extensions: ext ?? [id],
  aliases: aliases ?? [],
  ...(DETECTS_AS[id] ? { detectsAs: DETECTS_AS[id] } : {}),
  ...(FILENAMES[id] ? { filenames: FILENAMES[id] } : {}),
}));

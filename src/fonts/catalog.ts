/**
 * The fonts documents need, as Debian packages, and the faces that stand in for fonts a document
 * names but no free system has. One table each; the fontconfig file, LibreOffice's replacement
 * table, `doctor --install` and `doctor`'s check all read them.
 */

export interface FontPackage {
  /** Debian package. */
  package: string;
  /** Families `doctor` looks for with fc-list; each missing one is named. */
  families: string[];
  /** What the package gives documents. */
  covers: string;
  /** What a user sees when it is missing. */
  breaks: string;
}

export const FONT_PACKAGES: readonly FontPackage[] = [
  {
    package: 'fonts-liberation2',
    families: ['Liberation Sans', 'Liberation Serif', 'Liberation Mono'],
    covers: 'Arial, Times New Roman and Courier New with the same metrics (Latin, Greek, Cyrillic)',
    breaks: 'documents in Arial, Times New Roman or Courier New reflow: lines, tables and page breaks move',
  },
  {
    package: 'fonts-crosextra-carlito',
    families: ['Carlito'],
    covers: 'Calibri with the same metrics (Office body font 2007-2023)',
    breaks: 'Calibri documents reflow: lines, tables and page breaks move',
  },
  {
    package: 'fonts-crosextra-caladea',
    families: ['Caladea'],
    covers: 'Cambria with the same metrics (Office heading font 2007-2023)',
    breaks: 'Cambria documents reflow: lines, tables and page breaks move',
  },
  {
    package: 'fonts-dejavu-core',
    families: ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono'],
    covers: 'the default faces for unnamed sans, serif and monospace text',
    breaks: 'text without a named font may fall to a bitmap or symbol face',
  },
  {
    package: 'fonts-noto-core',
    families: [
      'Noto Sans',
      'Noto Serif',
      'Noto Naskh Arabic',
      'Noto Sans Hebrew',
      'Noto Sans Devanagari',
      'Noto Sans Bengali',
      'Noto Sans Tamil',
      'Noto Sans Thai',
      'Noto Sans Ethiopic',
      'Noto Sans Armenian',
      'Noto Sans Georgian',
    ],
    covers: 'Arabic, Hebrew, Indic scripts, Thai, Lao, Khmer, Myanmar, Ethiopic, Armenian, Georgian and more',
    breaks: 'text in these scripts prints as empty boxes (the text layer keeps it, the page does not)',
  },
  {
    package: 'fonts-noto-cjk',
    families: ['Noto Sans CJK SC', 'Noto Serif CJK SC'],
    covers: 'Chinese (simplified and traditional), Japanese and Korean, sans and serif',
    breaks: 'Chinese, Japanese and Korean text prints as empty boxes',
  },
  {
    package: 'fonts-noto-color-emoji',
    families: ['Noto Color Emoji'],
    covers: 'colour emoji for engines that keep colour glyphs (Chromium, SVG to PDF)',
    breaks: 'emoji print as boxes in web pages and SVG converted to PDF',
  },
  {
    package: 'fonts-symbola',
    families: ['Symbola'],
    covers:
      'emoji and symbols as outlines, for engines that drop or break colour glyphs (LibreOffice, SVG to images)',
    breaks: 'emoji vanish from office documents converted to PDF and from SVG rendered to images',
  },
];

/** What `doctor --install` adds for fonts: the packages, and fontconfig for fc-list and fc-match. */
export const FONT_PACKAGE_NAMES: readonly string[] = ['fontconfig', ...FONT_PACKAGES.map((p) => p.package)];

export interface FontReplacement {
  /** Families documents name (Office, Windows and macOS fonts). */
  fonts: readonly string[];
  /** The installed family drawn instead. */
  substitute: string;
  /** True when the substitute has the same advance widths, so text keeps its line breaks. */
  metric: boolean;
}

/*
 * Substitutes are used only when the named font is missing: a machine that has the real font keeps
 * it. Metric-compatible faces come first; where none exists in Debian the closest design stands in:
 * Aptos to Carlito (Office itself falls back to Calibri), Segoe UI to Noto Sans (from the same
 * humanist design family as Open Sans), the CJK system fonts of Windows to Noto CJK in the same
 * style and region.
 */
export const FONT_REPLACEMENTS: readonly FontReplacement[] = [
  { fonts: ['Calibri', 'Calibri Light'], substitute: 'Carlito', metric: true },
  { fonts: ['Cambria'], substitute: 'Caladea', metric: true },
  {
    fonts: ['Arial', 'Helvetica', 'Helvetica Neue', 'Arial Unicode MS'],
    substitute: 'Liberation Sans',
    metric: true,
  },
  { fonts: ['Times New Roman', 'Times'], substitute: 'Liberation Serif', metric: true },
  { fonts: ['Courier New', 'Courier'], substitute: 'Liberation Mono', metric: true },
  {
    fonts: ['Aptos', 'Aptos Display', 'Aptos Narrow', 'Candara', 'Corbel'],
    substitute: 'Carlito',
    metric: false,
  },
  { fonts: ['Aptos Serif', 'Constantia'], substitute: 'Caladea', metric: false },
  {
    fonts: ['Aptos Mono', 'Consolas', 'Lucida Console', 'Menlo', 'Monaco'],
    substitute: 'Liberation Mono',
    metric: false,
  },
  {
    fonts: ['Segoe UI', 'Segoe UI Light', 'Segoe UI Semibold', 'Trebuchet MS', 'San Francisco'],
    substitute: 'Noto Sans',
    metric: false,
  },
  { fonts: ['Verdana', 'Tahoma'], substitute: 'DejaVu Sans', metric: false },
  {
    fonts: ['Georgia', 'Book Antiqua', 'Palatino Linotype', 'Garamond'],
    substitute: 'Noto Serif',
    metric: false,
  },
  { fonts: ['Segoe UI Emoji', 'Apple Color Emoji'], substitute: 'Noto Color Emoji', metric: false },
  { fonts: ['Segoe UI Symbol'], substitute: 'Symbola', metric: false },
  { fonts: ['Microsoft YaHei', 'DengXian', 'SimHei'], substitute: 'Noto Sans CJK SC', metric: false },
  { fonts: ['SimSun', 'NSimSun', 'FangSong', 'KaiTi'], substitute: 'Noto Serif CJK SC', metric: false },
  { fonts: ['Microsoft JhengHei'], substitute: 'Noto Sans CJK TC', metric: false },
  { fonts: ['PMingLiU', 'MingLiU'], substitute: 'Noto Serif CJK TC', metric: false },
  {
    fonts: ['Yu Gothic', 'MS Gothic', 'MS PGothic', 'Meiryo', 'Hiragino Sans'],
    substitute: 'Noto Sans CJK JP',
    metric: false,
  },
  {
    fonts: ['Yu Mincho', 'MS Mincho', 'MS PMincho', 'Hiragino Mincho ProN'],
    substitute: 'Noto Serif CJK JP',
    metric: false,
  },
  { fonts: ['Malgun Gothic', 'Gulim', 'Dotum'], substitute: 'Noto Sans CJK KR', metric: false },
  { fonts: ['Batang', 'Gungsuh'], substitute: 'Noto Serif CJK KR', metric: false },
  {
    fonts: ['Traditional Arabic', 'Simplified Arabic', 'Arabic Typesetting'],
    substitute: 'Noto Naskh Arabic',
    metric: false,
  },
  { fonts: ['Mangal', 'Nirmala UI'], substitute: 'Noto Sans Devanagari', metric: false },
  { fonts: ['Leelawadee UI', 'Angsana New', 'Cordia New'], substitute: 'Noto Sans Thai', metric: false },
];

/** Every (named font, substitute) pair, in table order. */
export function replacementPairs(): Array<[font: string, substitute: string]> {
  return FONT_REPLACEMENTS.flatMap((r) => r.fonts.map((f): [string, string] => [f, r.substitute]));
}

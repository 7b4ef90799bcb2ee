export const FAMILIES = [
  'document',
  'spreadsheet',
  'presentation',
  'image',
  'audio',
  'video',
  'data',
  'ebook',
  'archive',
  'text',
  'code',
  'font',
  'model',
  'executable',
] as const;

/** What kind of thing a file is. */
export type FormatFamily = (typeof FAMILIES)[number];

/** Canonical format id: the lowercase usual extension (`jpg`, `yaml`, `md`). */
export type FormatId = string;

export interface FormatDef {
  id: FormatId;
  name: string;
  family: FormatFamily;
  mime: string;
  /** File name extensions, without the dot; the first is the one outputs get. */
  extensions: string[];
  /** Other names users type for it (`jpeg`, `yml`). */
  aliases: string[];
  /** Whole lowercase file names that declare the format without an extension (`makefile`). */
  filenames?: string[];
  /**
   * Set when a conversion target is a profile of another format that detection reports
   * (PDF/A is detected as pdf): the self-test checks outputs against this id.
   */
  detectsAs?: FormatId;
}

/** One row of the registry: id, name, family, media type, extensions (default [id]), aliases. */
export type FormatRow = [
  id: string,
  name: string,
  family: FormatFamily,
  mime: string,
  ext?: string[],
  aliases?: string[],
];

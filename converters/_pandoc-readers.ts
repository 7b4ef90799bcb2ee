import type { FormatId } from '../src/formats/index.js';

/** pandoc's reader (`-f`) of each format fileconv hands it, for every converter that runs pandoc. */
const PANDOC_READERS: Partial<Record<FormatId, string>> = {
  md: 'markdown',
  rst: 'rst',
  org: 'org',
  tex: 'latex',
  html: 'html',
  docx: 'docx',
  odt: 'odt',
  epub: 'epub',
  mediawiki: 'mediawiki',
  textile: 'textile',
  // man pages: the roff people exchange (pandoc reads the man macros, not every roff program).
  roff: 'man',
  docbook: 'docbook',
  ipynb: 'ipynb',
};

/** pandoc's reader of a format, if it reads it. */
export const pandocReader = (format: FormatId): string | undefined => PANDOC_READERS[format];

/**
 * Sources whose pictures exist only inside the file, so only in pandoc's memory once read: a
 * container's media, a notebook's outputs (data in its JSON). Pages made from them carry their
 * pictures as data URLs (`--self-contained`), or they show broken images.
 */
export const PICTURES_INSIDE: ReadonlySet<FormatId> = new Set(['docx', 'odt', 'epub', 'ipynb']);

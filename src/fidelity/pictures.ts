import { posix } from 'node:path';
import type { FormatId } from '../formats/index.js';
import type { ZipContents } from './zip.js';

const IMAGE_FILE = /\.(png|jpe?g|gif|bmp|tiff?|webp|emf|wmf|svg|avif)$/i;
/** Drawings rather than pixels: a PDF draws them as paths, with no image object to count. */
const VECTOR_FILE = /\.(emf|wmf|svg)$/i;

export const MEDIA_FOLDERS: Partial<Record<FormatId, RegExp>> = {
  docx: /^word\/media\//,
  pptx: /^ppt\/media\//,
  xlsx: /^xl\/media\//,
  odt: /^Pictures\//,
  odp: /^Pictures\//,
  ods: /^Pictures\//,
  epub: /./,
};

/** The relationship parts of a presentation's slides, layouts and masters. */
export const SLIDE_RELS = /^ppt\/(slides|slideLayouts|slideMasters)\/_rels\/[^/]+\.rels$/;

/**
 * The parts a presentation shows: its slides, the layouts they use and those layouts' masters.
 * A template's unused layouts may hold pictures that no slide shows.
 */
function shownSlideParts(rels: Map<string, string>): Set<string> {
  const shown = new Set<string>();
  let next = [...rels.keys()].filter((r) => r.startsWith('ppt/slides/'));
  while (next.length) {
    const found: string[] = [];
    for (const rel of next) {
      const part = rel.replace(/_rels\/([^/]+)\.rels$/, '$1');
      if (shown.has(part)) continue;
      shown.add(part);
      // Down the chain only: a master lists every layout, used or not.
      const down = rel.startsWith('ppt/slides/') ? /^slideLayout$/ : /^slideMaster$/;
      for (const target of targetsOf(rel, rels.get(rel) ?? '', down))
        found.push(target.replace(/([^/]+)$/, '_rels/$1.rels'));
    }
    next = found.filter((r) => rels.has(r));
  }
  return shown;
}

/** The zip paths a relationship part points to, of the relationship types `type` matches. */
function targetsOf(relPath: string, xml: string, type: RegExp): string[] {
  const base = posix.dirname(posix.dirname(relPath));
  return [...xml.matchAll(/<Relationship\b[^>]*>/g)]
    .map((m) => m[0])
    .filter(
      (r) =>
        type.test(/\bType="([^"]*)"/.exec(r)?.[1]?.split('/').pop() ?? '') &&
        !/TargetMode="External"/.test(r),
    )
    .map((r) => posix.normalize(posix.join(base, /\bTarget="([^"]*)"/.exec(r)?.[1] ?? '')));
}

/**
 * Distinct pictures of an office or EPUB container: files of its media folder, a copy of the same
 * file counted once (a writer may store one picture per placement; a PDF keeps one object). For a
 * presentation, only pictures its slides show; with `rasterOnly`, no drawings (for PDF targets).
 */
export function containerPictures(
  zip: ZipContents,
  format: FormatId,
  rasterOnly: boolean,
): number | undefined {
  const media = MEDIA_FOLDERS[format];
  if (!media) return undefined;
  let files = zip.names.filter((n) => media.test(n) && IMAGE_FILE.test(n));
  if (format === 'pptx') {
    const rels = new Map([...zip.texts].filter(([n]) => SLIDE_RELS.test(n)));
    const shown = shownSlideParts(rels);
    const used = new Set(
      [...rels]
        .filter(([rel]) => shown.has(rel.replace(/_rels\/([^/]+)\.rels$/, '$1')))
        .flatMap(([rel, xml]) => targetsOf(rel, xml, /^image$/)),
    );
    files = files.filter((f) => used.has(f));
  }
  if (rasterOnly) files = files.filter((f) => !VECTOR_FILE.test(f));
  return new Set(files.map((f) => zip.fingerprints.get(f) ?? f)).size;
}

/**
 * Content checks of the real-world run that count rather than read: pictures kept (a broken-image
 * mark is not a picture) and structure kept (slides, pages, duration, pixel size, an ebook's
 * headings). Text checks are in content.ts.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import yauzl from 'yauzl';
import { countFile, decodedSeconds } from '../../src/fidelity/counts.js';
import { MEDIA_FOLDERS } from '../../src/fidelity/pictures.js';
import { markupText } from '../../src/fidelity/text.js';
import { readZip } from '../../src/fidelity/zip.js';
import { withTools } from '../../src/run/measure-tools.js';
import { type CaseContext, type ContentVerdict, family, shownText, tool } from './content.js';

/** A picture at most this many pixels a side is an icon: Chromium's broken-image mark is 14x16. */
const PLACEHOLDER_PX = 20;
/** A media output's length may differ from its source's by this share (plus an MP3's padding). */
const DURATION_SHARE = 0.01;
const MP3_PADDING_S = 0.22;

const IMAGE_ENTRY = /\.(png|jpe?g|gif|bmp|tiff?|webp)$/i;
const MEDIA_FOLDER = MEDIA_FOLDERS as Record<string, RegExp>;

/** Distinct raster pictures larger than an icon among a ZIP container's media entries. */
function zipPictures(path: string, folder: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip'));
      const seen = new Set<string>();
      const pending: Promise<void>[] = [];
      zip.on('error', reject);
      zip.on('end', () => Promise.all(pending).then(() => resolve(seen.size), reject));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (
          !folder.test(entry.fileName) ||
          !IMAGE_ENTRY.test(entry.fileName) ||
          entry.uncompressedSize > 64e6
        )
          return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('end', () => {
            const data = Buffer.concat(chunks);
            pending.push(
              sharp(data)
                .metadata()
                .then((m) => {
                  if ((m.width ?? 0) > PLACEHOLDER_PX || (m.height ?? 0) > PLACEHOLDER_PX)
                    seen.add(createHash('sha1').update(data).digest('hex'));
                })
                .catch(() => undefined),
            );
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Distinct image objects of a PDF larger than an icon (`pdfimages -list`; masks are parts of a picture). */
async function pdfPictures(path: string): Promise<number | undefined> {
  const list = await tool('pdfimages', ['-list', path]);
  if (list === undefined) return undefined;
  const ids = new Set<string>();
  for (const line of list.split('\n')) {
    const m = /^\s*\d+\s+\d+\s+image\s+(\d+)\s+(\d+)\s+(?:\S+\s+){5}(\d+)\s+\d+/.exec(line);
    if (m && (Number(m[1]) > PLACEHOLDER_PX || Number(m[2]) > PLACEHOLDER_PX)) ids.add(m[3]!);
  }
  return ids.size;
}

async function picturesOf(path: string, format: string): Promise<number | undefined> {
  try {
    if (format === 'pdf') return await pdfPictures(path);
    const folder = MEDIA_FOLDER[format];
    return folder ? await zipPictures(path, folder) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pictures kept: the output's distinct pictures larger than an icon, so a broken-image mark counts
 * as none, against the source's. A presentation is counted as the fidelity measure counts it (its
 * shown slides only, for a PDF pixels and not drawings); other sources by their pictures larger
 * than an icon (an EPUB's package may hold a 1-pixel stand-in cover).
 */
export async function picturesCheck(c: CaseContext): Promise<ContentVerdict[]> {
  if (!(c.to in MEDIA_FOLDER) && c.to !== 'pdf') return [];
  const source =
    c.from !== 'pptx'
      ? await picturesOf(c.source, c.from)
      : c.from in MEDIA_FOLDER
        ? (
            await withTools(undefined, (run) =>
              countFile(c.source, c.from as never, run, { rasterOnly: c.to === 'pdf' }),
            )
          ).images
        : undefined;
  if (!source) return [];
  const output = await picturesOf(c.outputs[0]!, c.to);
  if (output === undefined) return [];
  return [{ check: 'pictures', ok: output >= source, why: `${output} of ${source} pictures` }];
}

async function pdfPages(path: string): Promise<number | undefined> {
  const info = await tool('pdfinfo', [path]);
  const n = info && /^Pages:\s+(\d+)/m.exec(info)?.[1];
  return n ? Number(n) : undefined;
}

async function duration(path: string): Promise<number | undefined> {
  const out = await tool('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    path,
  ]);
  const d = Number(out?.trim());
  return out && Number.isFinite(d) ? d : undefined;
}

/** An audio file's length as decoding it gives, when its header's claim is not to be trusted. */
function decodedDuration(path: string): Promise<number | undefined> {
  return withTools(undefined, (run) => decodedSeconds(path, run));
}

async function imageSize(path: string): Promise<string | undefined> {
  const m = await sharp(path, { pages: 1, limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  return m?.autoOrient?.width ? `${m.autoOrient.width}x${m.autoOrient.height}` : undefined;
}

/** Slide count of a presentation (its slide parts). */
async function slides(path: string, format: string): Promise<number | undefined> {
  const names: string[] = await new Promise((resolve) =>
    yauzl.open(path, { lazyEntries: false, autoClose: true }, (err, zip) => {
      if (err || !zip) return resolve([]);
      const all: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => all.push(e.fileName));
      zip.on('end', () => resolve(all));
      zip.on('error', () => resolve([]));
    }),
  );
  if (format === 'pptx') return names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).length;
  return undefined;
}

/** Headings of an EPUB's pages (h1 to h3), as text. */
async function epubHeadings(path: string): Promise<string[]> {
  const text = await readZip(path, (n) => /\.x?html?$/i.test(n));
  const out: string[] = [];
  for (const xml of text.texts.values())
    for (const m of xml.matchAll(/<h([1-3])\b[^>]*>([\s\S]*?)<\/h\1>/gi)) {
      const h = markupText(m[2]!).replace(/\s+/g, ' ').trim();
      if (h) out.push(h);
    }
  return out;
}

const squash = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** Structure where it is defined: slides and PDF pages, durations, image sizes, ebook headings. */
export async function structureCheck(c: CaseContext): Promise<ContentVerdict[]> {
  const o = c.options ?? {};
  const out = c.outputs[0]!;
  const fromFamily = family(c.from);
  const toFamily = family(c.to);
  if ((c.from === 'pptx' || c.from === 'odp') && c.to === 'pdf') {
    const [s, p] = [await slides(c.source, c.from), await pdfPages(out)];
    if (s && p !== undefined) return [{ check: 'structure', ok: s === p, why: `${p} pages for ${s} slides` }];
  }
  if (c.from === 'pdf' && toFamily === 'image' && !o.pages) {
    const p = await pdfPages(c.source);
    if (p)
      return [
        { check: 'structure', ok: c.outputs.length === p, why: `${c.outputs.length} images for ${p} pages` },
      ];
  }
  const media = (f?: string) => f === 'audio' || f === 'video';
  if (
    media(fromFamily) &&
    media(toFamily) &&
    o.start === undefined &&
    o.duration === undefined &&
    o.speed === undefined
  ) {
    let [a, b] = [await duration(c.source), await duration(out)];
    const slack = (s: number) => s * DURATION_SHARE + (c.to === 'mp3' ? MP3_PADDING_S : 0) + 0.05;
    // Only a length that disagrees is checked against the decoded one (decoding costs time).
    if (fromFamily === 'audio' && b !== undefined && (!a || Math.abs(a - b) > slack(a)))
      a = (await decodedDuration(c.source)) ?? a;
    if (a && b !== undefined) {
      const ok = Math.abs(a - b) <= slack(a);
      return [{ check: 'structure', ok, why: `${b.toFixed(2)} s for ${a.toFixed(2)} s` }];
    }
  }
  const sized = o.width !== undefined || o.height !== undefined || o.resolution !== undefined;
  // A drawing (SVG) has no pixel size of its own: its units are drawn at the renderer's resolution.
  if (
    fromFamily === 'image' &&
    toFamily === 'image' &&
    !sized &&
    c.outputs.length === 1 &&
    c.from !== 'svg'
  ) {
    const [a, b] = [await imageSize(c.source), await imageSize(out)];
    if (a && b) return [{ check: 'structure', ok: a === b, why: `${b} for ${a}` }];
  }
  if (c.from === 'epub' && (c.to === 'pdf' || c.to === 'txt' || c.to === 'docx' || c.to === 'html')) {
    const headings = await epubHeadings(c.source).catch(() => []);
    const text = await shownText(out, c.to);
    if (headings.length && text !== undefined) {
      const body = squash(text);
      const lost = headings.filter((h) => !body.includes(squash(h)));
      return [
        {
          check: 'structure',
          ok: lost.length === 0,
          why: `${headings.length - lost.length} of ${headings.length} headings`,
        },
      ];
    }
  }
  return [];
}

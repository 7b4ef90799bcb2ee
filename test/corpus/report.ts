/**
 * The real-world run's content figures: type-right and content-kept rates per corpus source and
 * family, and an HTML page that shows a sample of cases (and every failure) as a person sees them,
 * the source's first page beside the output's, drawn by pdftoppm and ImageMagick.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { getFormat } from '../../src/formats/index.js';
import { type ContentVerdict, shownText } from './content.js';
import { cacheDir } from './fetch.js';

/** One case in this many is shown in the HTML report besides every failure. */
const SAMPLE_ONE_IN = 16;
const THUMB_PX = 240;

export interface ContentOutcome {
  name: string;
  format: string;
  source: string;
  /** The output has the target's type. */
  ok: boolean;
  why?: string;
  content?: ContentVerdict[];
  view?: CaseView;
}

export interface CaseView {
  sourceImage?: string;
  outputImage?: string;
  sourceText?: string;
  outputText?: string;
}

export const familyOf = (format: string) => getFormat(format)?.family ?? 'other';

/** Whether the content checks that apply all pass; undefined when none applies. */
export function contentKept(o: ContentOutcome): boolean | undefined {
  const applied = (o.content ?? []).filter((v) => !v.exempt);
  return applied.length ? applied.every((v) => v.ok) : undefined;
}

export function reportDir(): string {
  return process.env.REALWORLD_REPORT ?? join(cacheDir(), 'report');
}

export async function resetReport(): Promise<void> {
  await rm(reportDir(), { recursive: true, force: true });
  await mkdir(join(reportDir(), 'img'), { recursive: true });
}

export const sampled = (name: string) =>
  createHash('sha1').update(name).digest().readUInt32BE(0) % SAMPLE_ONE_IN === 0;

/** A PNG of a file's first page or frame, or undefined when neither tool draws the format. */
async function thumbnail(path: string, format: string, dest: string): Promise<string | undefined> {
  const family = familyOf(format);
  const opts = { reject: false, timeout: 30_000 } as const;
  if (format === 'pdf') {
    const r = await execa(
      'pdftoppm',
      ['-f', '1', '-l', '1', '-png', '-singlefile', '-scale-to', String(THUMB_PX), path, dest],
      opts,
    );
    return r.exitCode === 0 ? `${dest}.png` : undefined;
  }
  if (family === 'image') {
    // sharp first (libvips is far quicker than ImageMagick on large photos), ImageMagick for the rest.
    const drawn = await sharp(path, { pages: 1, limitInputPixels: false })
      .resize(THUMB_PX, THUMB_PX, { fit: 'inside' })
      .png()
      .toFile(`${dest}.png`)
      .then(() => `${dest}.png`)
      .catch(() => undefined);
    if (drawn) return drawn;
  }
  if (family === 'image' || format === 'ps' || format === 'eps') {
    const r = await execa(
      'convert',
      [`${path}[0]`, '-thumbnail', `${THUMB_PX}x${THUMB_PX}`, `png:${dest}.png`],
      opts,
    );
    return r.exitCode === 0 ? `${dest}.png` : undefined;
  }
  return undefined;
}

const excerpt = async (path: string, format: string) =>
  (await shownText(path, format).catch(() => undefined))?.replace(/\s+/g, ' ').trim().slice(0, 600);

/** The two sides of a case as the HTML report shows them: a picture where one can be drawn, else text. */
export async function viewCase(
  name: string,
  source: string,
  from: string,
  output: string | undefined,
  to: string,
) {
  const id = createHash('sha1').update(name).digest('hex').slice(0, 12);
  const dir = join(reportDir(), 'img');
  const view: CaseView = {};
  view.sourceImage = await thumbnail(source, from, join(dir, `${id}-source`));
  if (!view.sourceImage) view.sourceText = await excerpt(source, from);
  if (output) {
    view.outputImage = await thumbnail(output, to, join(dir, `${id}-output`));
    if (!view.outputImage) view.outputText = await excerpt(output, to);
  }
  return view;
}

const pct = (n: number, d: number) => (d ? `${((n / d) * 100).toFixed(1)}%` : '-');

interface Rates {
  cases: number;
  typeRight: number;
  measured: number;
  kept: number;
  exempt: number;
}

function rates(list: ContentOutcome[]): Rates {
  const verdicts = list.map(contentKept);
  return {
    cases: list.length,
    typeRight: list.filter((o) => o.ok).length,
    measured: verdicts.filter((v) => v !== undefined).length,
    kept: verdicts.filter((v) => v === true).length,
    exempt: list.filter((o) => o.content?.some((v) => v.exempt)).length,
  };
}

const groupBy = <T>(list: T[], key: (t: T) => string) => {
  const m = new Map<string, T[]>();
  for (const t of list) m.set(key(t), [...(m.get(key(t)) ?? []), t]);
  return [...m].sort(([a], [b]) => a.localeCompare(b));
};

const line = (label: string, r: Rates) =>
  `  ${label.padEnd(16)} type-right ${`${r.typeRight}/${r.cases}`.padStart(9)} ${pct(r.typeRight, r.cases).padStart(6)}   content-kept ${`${r.kept}/${r.measured}`.padStart(9)} ${pct(r.kept, r.measured).padStart(6)}${r.exempt ? `   (${r.exempt} exempt)` : ''}`;

/**
 * Prints the rates per source and family and every content failure; returns each source's
 * content-kept rate for the gate.
 */
export function printContent(outcomes: ContentOutcome[]): Map<string, number> {
  const perSource = new Map<string, number>();
  console.log('\nContent (words, script, pictures, structure; test/corpus/content.ts)');
  for (const [source, list] of groupBy(outcomes, (o) => o.source)) {
    console.log(` source ${source}`);
    for (const [fam, group] of groupBy(list, (o) => familyOf(o.format))) console.log(line(fam, rates(group)));
    const all = rates(list);
    console.log(line('all', all));
    perSource.set(source, all.measured ? all.kept / all.measured : 1);
  }
  const failed = outcomes.filter((o) => contentKept(o) === false);
  if (failed.length) {
    console.log('  content not kept:');
    for (const o of failed) {
      const why = (o.content ?? []).filter((v) => !v.ok).map((v) => `${v.check}: ${v.why}`);
      console.log(`    ${o.name}: ${why.join('; ')}`);
    }
  }
  return perSource;
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function side(image: string | undefined, text: string | undefined): string {
  if (image) return `<img src="img/${esc(image.split('/').pop()!)}" alt="">`;
  return text === undefined ? '<p class="none">not drawn</p>' : `<pre>${esc(text)}</pre>`;
}

/** Writes the HTML report and returns its path. */
export async function writeHtmlReport(outcomes: ContentOutcome[]): Promise<string> {
  const shown = outcomes.filter((o) => o.view);
  const rows = shown
    .sort((a, b) => Number(contentKept(a) !== false && a.ok) - Number(contentKept(b) !== false && b.ok))
    .map((o) => {
      const kept = contentKept(o);
      const state = !o.ok ? 'wrong type' : kept === false ? 'content lost' : kept ? 'kept' : 'no check';
      const verdicts = [
        ...(o.ok ? [] : [`type: ${o.why ?? ''}`]),
        ...(o.content ?? []).map(
          (v) =>
            `${v.check}: ${v.exempt ? `exempt (${v.exempt})` : `${v.ok ? 'ok' : 'FAILED'} ${v.why ?? ''}`}`,
        ),
      ];
      return `<tr class="${state.replace(' ', '-')}"><td><b>${esc(o.name)}</b><br>${esc(o.source)} · ${esc(familyOf(o.format))} · ${state}<ul>${verdicts.map((v) => `<li>${esc(v)}</li>`).join('')}</ul></td><td>${side(o.view?.sourceImage, o.view?.sourceText)}</td><td>${side(o.view?.outputImage, o.view?.outputText)}</td></tr>`;
    });
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>fileconv real-world content report</title><style>
body{font:14px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}td{border:1px solid #ccc;padding:6px;vertical-align:top;max-width:420px}
img{max-width:${THUMB_PX}px;border:1px solid #ddd}pre{white-space:pre-wrap;font-size:12px;max-height:260px;overflow:auto;margin:0}
tr.content-lost td:first-child,tr.wrong-type td:first-child{background:#fee}.none{color:#999}
</style></head><body><h1>Real-world conversions: source beside output</h1>
<p>${shown.length} cases: every failure and one in ${SAMPLE_ONE_IN} of the others.</p>
<table><tr><th>case</th><th>source</th><th>output</th></tr>${rows.join('\n')}</table></body></html>\n`;
  const path = join(reportDir(), 'index.html');
  await writeFile(path, html);
  return path;
}

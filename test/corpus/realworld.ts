/**
 * `npm run realworld`: detection and conversion figures on the real-world corpus (docs/corpus.md),
 * per source. Detects every corpus file, converts each whole file to its format's usual targets
 * in-process (a bounded timeout a case, two at a time; the upstream source by a deterministic
 * sample) and checks every output with an independent tool. Prints per-format figures and every
 * miss; exits 1 under a source's thresholds (or floors, test/corpus/gates.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sourceFormatOf } from '../../src/core/source-format.js';
import { detect } from '../../src/detect/index.js';
import { CONVERSION_DETAIL_CODES, isFileconvError } from '../../src/errors/index.js';
import { getFormat } from '../../src/formats/index.js';
import { mapLimit } from '../../src/run/concurrency.js';
import { runConversion } from '../../src/run/runner.js';
import { CHECK_MS, contentVerdicts, isTarget, targetsFor } from './checks.js';
import { type FidelityCase, measureCase, printFidelity } from './fidelity.js';
import { GATES, type Gate, MIN_FILES_PER_FORMAT, SAMPLE, sampleCases } from './gates.js';
import {
  type ContentOutcome,
  contentKept,
  printContent,
  resetReport,
  sampled,
  viewCase,
  writeHtmlReport,
} from './report.js';
import { fetchSources, SOURCES, type SourcedFile, type SourceName } from './sources.js';

type CorpusFile = SourcedFile;
const CASE_TIMEOUT_MS = 120_000;
const PARALLEL = 2;
/** Codes a broken file may end in: the conversion was refused for a stated reason. */
const CLEAR_CODES = new Set<string>([...CONVERSION_DETAIL_CODES, 'UNSUPPORTED_CONVERSION']);

interface Outcome extends Partial<ContentOutcome> {
  name: string;
  format: string;
  ok: boolean;
  why?: string;
  fidelity?: FidelityCase;
}

const canonical = (id: string) => getFormat(id)?.detectsAs ?? id;

/**
 * Two figures: the bytes alone (the detector's `detected`), and the source format a conversion
 * starts from (sourceFormatOf: the bytes, or the file's name where text heuristics allow it).
 * Thresholds apply to the second; a plain-text LICENSE.md is Markdown only by its name.
 */
async function detectAll(files: CorpusFile[]) {
  const sources = new Map<string, string>();
  const bytes: Outcome[] = [];
  const named: Outcome[] = [];
  await mapLimit(files, 4, async (f) => {
    const report = await detect(f.file, { filename: basename(f.name) });
    const source = sourceFormatOf(report);
    if (source) sources.set(f.name, source);
    const judge = (id: string | undefined, out: Outcome[]) => {
      const ok = id !== undefined && canonical(id) === canonical(f.format);
      out.push({ name: f.name, format: f.format, ok, why: ok ? undefined : `got ${id ?? 'nothing'}` });
    };
    judge(report.detected, bytes);
    judge(source ?? 'bin', named);
  });
  return { bytes, named, sources };
}

function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error(`no answer within ${CASE_TIMEOUT_MS / 1000} s`));
    }, CASE_TIMEOUT_MS);
  });
  return Promise.race([work(abort.signal), timeout]).finally(() => clearTimeout(timer));
}

/** An audio-only file refused for a GIF (or a silent video for MP3) with the stream it lacks named. */
const refusedForLackingStream = (f: CorpusFile, e: unknown) =>
  (f.tracks === 'audio-only' && /has no video stream/.test((e as Error).message)) ||
  (f.tracks === 'video-only' && /has no audio stream/.test((e as Error).message));

const isBroken = (f: CorpusFile) => f.cut !== undefined || f.broken === true || f.encrypted === true;

/** Time spent in the content checks and the report's pictures, summed over cases. */
let contentMs = 0;

/** Converts as a user would: a PDF without a text layer is tried again with OCR, as NEEDS_OCR advises. */
async function convertLikeAUser(f: CorpusFile, from: string, to: string, outDir: string) {
  const run = async (options?: unknown) => ({
    options,
    result: await withTimeout((signal) =>
      runConversion({ input: f.file, from, to, outDir, signal, options }),
    ),
  });
  try {
    return await run();
  } catch (e) {
    if (isFileconvError(e) && e.code === 'NEEDS_OCR') return run({ ocr: true });
    throw e;
  }
}

/** One conversion case: a whole file must give a checked output; a broken one a clear code (or a good output). */
async function convertCase(f: CorpusFile, from: string | undefined, to: string): Promise<Outcome> {
  const name = `${f.name} -> ${to}`;
  const outDir = await mkdtemp(join(tmpdir(), 'fileconv-realworld-'));
  try {
    if (!from) throw new Error('no source format');
    const { result, options } = await convertLikeAUser(f, from, to, outDir);
    const outputs = result.files.map((file) => file.path);
    const output = outputs[0];
    if (!output) return { name, format: f.format, ok: false, why: 'no output' };
    const why = await isTarget(output, to);
    if (why && !(why === 'empty output' && f.empty)) {
      const view = await viewCase(name, f.file, from, output, to);
      return { name, format: f.format, ok: false, why, view };
    }
    // A broken file's output is a salvage, not a copy: only whole files are held to the floors
    // and to the content checks.
    if (isBroken(f)) return { name, format: f.format, ok: true };
    const fidelity = await measureCase(name, from, to, f.file, outputs, options);
    const checking = Date.now();
    const content = await contentVerdicts({
      source: f.file,
      from,
      to,
      outputs,
      options: options as Record<string, unknown>,
    });
    const shown =
      sampled(name) || contentKept({ name, format: f.format, source: '', ok: true, content }) === false;
    const view = shown ? await viewCase(name, f.file, from, output, to) : undefined;
    contentMs += Date.now() - checking;
    return { name, format: f.format, ok: true, fidelity, content, view };
  } catch (e) {
    const code = isFileconvError(e) ? e.code : undefined;
    if (isBroken(f) && code && CLEAR_CODES.has(code)) return { name, format: f.format, ok: true };
    if (refusedForLackingStream(f, e)) return { name, format: f.format, ok: true };
    const why = code
      ? `${code}: ${(e as Error).message.split('\n')[0]!.slice(0, 160)}`
      : `crash: ${(e as Error).message}`;
    return { name, format: f.format, ok: false, why };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

function table(
  title: string,
  outcomes: Outcome[],
): { rate: number; perFormat: Map<string, [number, number]> } {
  const groups = new Map<string, Outcome[]>();
  for (const o of outcomes) groups.set(o.format, [...(groups.get(o.format) ?? []), o]);
  const perFormat = new Map<string, [number, number]>();
  console.log(`\n${title}`);
  for (const [format, list] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const passed = list.filter((o) => o.ok).length;
    perFormat.set(format, [passed / list.length, list.length]);
    console.log(
      `  ${format.padEnd(6)} ${String(passed).padStart(4)}/${String(list.length).padEnd(4)} ${pct(passed / list.length)}`,
    );
  }
  const passed = outcomes.filter((o) => o.ok).length;
  const rate = outcomes.length ? passed / outcomes.length : 1;
  console.log(`  all    ${passed}/${outcomes.length} ${pct(rate)} in ${groups.size} formats`);
  const misses = outcomes.filter((o) => !o.ok);
  if (misses.length)
    console.log(`  misses:\n${misses.map((m) => `    ${m.name} (${m.format}): ${m.why}`).join('\n')}`);
  return { rate, perFormat };
}

const pct = (r: number) => `${(r * 100).toFixed(1)}%`;

/** A source's figures against its gate: failures fail the run; a source with floors prints its targets. */
function judge(
  source: SourceName,
  gate: Gate,
  figures: {
    detection: ReturnType<typeof table>;
    conversions?: number;
    fidelity?: number;
    content?: number;
  },
) {
  const weak = [...figures.detection.perFormat]
    .filter(([, [rate, n]]) => n >= MIN_FILES_PER_FORMAT && rate < gate.detectionPerFormat)
    .map(([f, [rate]]) => `${f} ${pct(rate)}`);
  const under = [
    figures.detection.rate < gate.detection
      ? `detection ${pct(figures.detection.rate)} < ${pct(gate.detection)}`
      : '',
    weak.length ? `detection under ${pct(gate.detectionPerFormat)} for ${weak.join(', ')}` : '',
    figures.conversions !== undefined && figures.conversions < gate.conversions
      ? `conversions ${pct(figures.conversions)} < ${pct(gate.conversions)}`
      : '',
    figures.fidelity !== undefined && figures.fidelity < gate.fidelity
      ? `fidelity ${pct(figures.fidelity)} < ${pct(gate.fidelity)}`
      : '',
    figures.content !== undefined && figures.content < gate.content
      ? `content kept ${pct(figures.content)} < ${pct(gate.content)}`
      : '',
  ].filter(Boolean);
  if (!gate.floor) return under.map((u) => `${source}: ${u}`);
  if (under.length)
    console.log(`\n${source}: under the targets (not yet enforced, floors below): ${under.join('; ')}`);
  const floor = gate.floor;
  return [
    figures.detection.rate < floor.detection
      ? `detection ${pct(figures.detection.rate)} < floor ${pct(floor.detection)}`
      : '',
    weak.length > floor.weakFormats
      ? `${weak.length} formats under ${pct(gate.detectionPerFormat)} > floor ${floor.weakFormats}`
      : '',
    figures.conversions !== undefined && figures.conversions < floor.conversions
      ? `conversions ${pct(figures.conversions)} < floor ${pct(floor.conversions)}`
      : '',
    figures.fidelity !== undefined && figures.fidelity < floor.fidelity
      ? `fidelity ${pct(figures.fidelity)} < floor ${pct(floor.fidelity)}`
      : '',
    figures.content !== undefined && figures.content < floor.content
      ? `content kept ${pct(figures.content)} < floor ${pct(floor.content)}`
      : '',
  ]
    .filter(Boolean)
    .map((u) => `${source}: ${u}`);
}

async function convertAll(cases: { f: CorpusFile; to: string }[], sources: Map<string, string>) {
  console.log(`\nConverting ${cases.length} cases, ${PARALLEL} at a time...`);
  const started = Date.now();
  let done = 0;
  const outcomes = await mapLimit(cases, PARALLEL, async ({ f, to }) => {
    const outcome = await convertCase(f, sources.get(f.name), to);
    outcome.source = f.source;
    if (++done % 100 === 0)
      console.log(`  ${done}/${cases.length} cases, ${Math.round((Date.now() - started) / 1000)} s`);
    return outcome;
  });
  console.log(`  ${cases.length} cases in ${Math.round((Date.now() - started) / 1000)} s`);
  return outcomes;
}

async function main(): Promise<number> {
  const files = await fetchSources((line) => console.log(line));
  const only = process.env.REALWORLD_ONLY;
  const chosen = only
    ? files.filter((f) => f.format === only || f.name.includes(only) || f.source === only)
    : files;
  const { bytes, named, sources } = await detectAll(chosen);
  const failures: string[] = [];
  const summary: string[] = [];
  const converted: Outcome[] = [];
  await resetReport();
  const sourceOf = new Map(chosen.map((f) => [f.name, f.source]));
  for (const source of SOURCES) {
    const mine = (o: Outcome) => sourceOf.get(o.name) === source;
    const of = chosen.filter((f) => f.source === source);
    if (of.length === 0) continue;
    console.log(
      `\n=== Source: ${source} (${of.length} files in ${new Set(of.map((f) => f.format)).size} formats)`,
    );
    const raw = table(`[${source}] Detection from the bytes alone (detect: detected)`, bytes.filter(mine));
    const detection = table(
      `[${source}] Detection of the source format (bytes and file name, sourceFormatOf)`,
      named.filter(mine),
    );
    let conversions: number | undefined;
    let fidelity: number | undefined;
    let content: number | undefined;
    if (!process.argv.includes('--detect-only')) {
      const cases =
        source === 'upstream' || !process.argv.includes('--every-case')
          ? sampleCases(of, targetsFor, isBroken, SAMPLE[source])
          : of.flatMap((f) =>
              (isBroken(f) ? targetsFor(f.format).slice(0, 1) : targetsFor(f.format)).map((to) => ({
                f,
                to,
              })),
            );
      const outcomes = await convertAll(cases, sources);
      converted.push(...outcomes);
      conversions = table(
        `[${source}] Conversions (output checked by file/ffprobe/pdfinfo/parsers)`,
        outcomes,
      ).rate;
      fidelity = printFidelity(outcomes.flatMap((o) => (o.fidelity ? [o.fidelity] : [])));
      content = printContent(outcomes as ContentOutcome[]).get(source);
      const passed = outcomes.filter((o) => o.ok).length;
      console.log(`\n[${source}] ${passed} passed, ${outcomes.length - passed} failed`);
    }
    failures.push(...judge(source, GATES[source], { detection, conversions, fidelity, content }));
    summary.push(
      `${source}: ${of.length} files, detection ${pct(detection.rate)} (bytes alone ${pct(raw.rate)})` +
        (conversions !== undefined ? `, conversions ${pct(conversions)}` : '') +
        (fidelity !== undefined ? `, fidelity ${pct(fidelity)}` : '') +
        (content !== undefined ? `, content kept ${pct(content)}` : ''),
    );
  }
  if (converted.length) {
    const each = [...CHECK_MS].map(([n, ms]) => `${n} ${Math.round(ms / 1000)} s`).join(', ');
    console.log(
      `\n  content checks and report pictures: ${Math.round(contentMs / 1000)} s of case time (${each})`,
    );
    console.log(`\nHTML report: ${await writeHtmlReport(converted as ContentOutcome[])}`);
  }
  console.log(`\nSummary\n  ${summary.join('\n  ')}`);
  return report(failures);
}

function report(failures: string[]): number {
  if (failures.length) console.log(`\nBelow the thresholds: ${failures.join('; ')}`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(e.message);
    process.exit(1);
  },
);

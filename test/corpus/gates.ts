/**
 * Thresholds of `npm run realworld`, per corpus source (docs/corpus.md). Set once: a figure is
 * raised by fixing a class of misses, never by moving a threshold to meet it.
 */
import { createHash } from 'node:crypto';
import type { SourcedFile, SourceName } from './sources.js';

export interface Gate {
  detection: number;
  detectionPerFormat: number;
  conversions: number;
  fidelity: number;
  /** Share of the cases a content check applies to whose words, script, pictures and structure are kept. */
  content: number;
  /**
   * Set while a source's misses are still being fixed: the thresholds above are printed as
   * targets, and the run fails only under these floors (today's measured figures, to be raised
   * as classes are fixed, never lowered).
   */
  floor?: { detection: number; conversions: number; fidelity: number; content: number; weakFormats: number };
}

const TARGETS = {
  detection: 0.98,
  detectionPerFormat: 0.9,
  conversions: 0.98,
  fidelity: 0.99,
  content: 0.98,
};

export const GATES: Record<SourceName, Gate> = {
  debian: TARGETS,
  upstream: {
    ...TARGETS,
    // Measured (docs/corpus.md): detection 99.5% with every format of five files or more at 90%
    // or over, conversions 98.3% of the sample, fidelity 96.6% (254 of 263), content kept 99.5%
    // (399 of 401). Detection, conversions and content now meet their targets; fidelity does
    // not, so the floors stay. Each sits a few cases under its figure, so that a timeout on a
    // loaded machine does not fail the run; raise them with each fixed class, never lower them.
    floor: { detection: 0.99, conversions: 0.98, fidelity: 0.975, content: 0.985, weakFormats: 0 },
  },
};

/** A format's figure counts only with this many files (fewer make a percentage meaningless). */
export const MIN_FILES_PER_FORMAT = 5;

/**
 * Conversion cases sampled from each source, so that a run stays within minutes: per format and
 * target, the whole files first by a hash of their name (deterministic, spread over packages), and
 * per format a few broken or encrypted files, each converted to its first target. `realworld
 * --every-case` converts every whole file of the debian source to every target instead.
 */
export const SAMPLE: Record<SourceName, { wholePerPair: number; brokenPerFormat: number }> = {
  debian: { wholePerPair: 5, brokenPerFormat: 3 },
  upstream: { wholePerPair: 5, brokenPerFormat: 3 },
};

const rank = (f: SourcedFile) => createHash('sha256').update(f.name).digest('hex');

export function sampleCases<F extends SourcedFile>(
  files: F[],
  targetsFor: (format: string) => string[],
  isBroken: (f: F) => boolean,
  sample: { wholePerPair: number; brokenPerFormat: number },
): { f: F; to: string }[] {
  const byFormat = new Map<string, F[]>();
  for (const f of [...files].sort((a, b) => rank(a).localeCompare(rank(b))))
    byFormat.set(f.format, [...(byFormat.get(f.format) ?? []), f]);
  const cases: { f: F; to: string }[] = [];
  for (const list of byFormat.values()) {
    const targets = targetsFor(list[0]!.format);
    const whole = list.filter((f) => !isBroken(f));
    // Each target takes the next files in rank order, so a format's sample covers more files.
    targets.forEach((to, i) => {
      const n = sample.wholePerPair;
      const start = whole.length > n ? (i * n) % whole.length : 0;
      const window = [...whole.slice(start), ...whole.slice(0, start)].slice(0, n);
      for (const f of window) cases.push({ f, to });
    });
    for (const f of list.filter(isBroken).slice(0, sample.brokenPerFormat))
      if (targets[0]) cases.push({ f, to: targets[0] });
  }
  return cases;
}

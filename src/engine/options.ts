import { z } from 'zod';
import { FileconvError } from '../errors/index.js';
import type { OptionSpec, OptionSpecs, OptionValues } from './option-kit.js';

/**
 * A conversion's validated options, as the runner passes them to every step. Each converter reads
 * the ones it declared through `optionsFor`, typed by its own declaration.
 */
export type ConversionOptions = Readonly<Record<string, unknown>>;

/** A converter's typed view of a conversion's options: they were checked against its specs. */
export function optionsFor<T extends OptionSpecs>(_specs: T, options: ConversionOptions): OptionValues<T> {
  return options as OptionValues<T>;
}

function invalid(message: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', message);
}

/** The declared options of many converters by name; the same name must be the same spec. */
export function mergeOptionSpecs(
  declarations: Iterable<{ owner: string; specs: OptionSpecs }>,
): Map<string, OptionSpec> {
  const merged = new Map<string, { spec: OptionSpec; owner: string }>();
  for (const { owner, specs } of declarations) {
    for (const [name, spec] of Object.entries(specs)) {
      const seen = merged.get(name);
      if (seen && seen.spec !== spec) {
        throw new Error(
          `option ${name} is declared differently by ${seen.owner} and ${owner}: share one spec (src/engine/shared-options.ts)`,
        );
      }
      merged.set(name, { spec, owner: seen?.owner ?? owner });
    }
  }
  return new Map([...merged].map(([name, { spec }]) => [name, spec]));
}

/** Every option in `specs` as one object schema, each optional and nothing else allowed. */
export function optionsObjectSchema(specs: ReadonlyMap<string, OptionSpec>) {
  return z.strictObject(
    Object.fromEntries(
      [...specs]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, o]) => [name, o.schema.optional().meta({ description: o.description })]),
    ),
  );
}

/**
 * Reads raw options (meta JSON or `-O key=value`) against the options some installed converter
 * declares: an unknown name or a bad value throws INVALID_REQUEST. Whether the conversion's own
 * steps take each option is asked once the plan is known (src/plan/options.ts).
 */
export function parseOptions(raw: unknown, known: ReadonlyMap<string, OptionSpec>): ConversionOptions {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('options must be an object');
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const spec = known.get(name);
    if (!spec) throw invalid(`unknown option ${name}`);
    const parsed = spec.schema.safeParse(value);
    if (!parsed.success) throw invalid(`option ${name} ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
    out[name] = parsed.data;
  }
  for (const name of Object.keys(out)) {
    for (const [other, reason] of Object.entries(known.get(name)?.excludes ?? {})) {
      if (other in out) throw invalid(`option ${name} cannot be given with ${other}: ${reason}`);
    }
  }
  return out;
}

/** The options among `names`: what one step is given, so no engine acts on another step's option. */
export function pickOptions(options: ConversionOptions, names: readonly string[]): ConversionOptions {
  return Object.fromEntries(Object.entries(options).filter(([name]) => names.includes(name)));
}

/** Expands a `pages` selection to sorted 1-based page numbers, capped at `max`. */
export function expandPages(pages: string | undefined, pageCount: number): number[] {
  if (!pages) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const set = new Set<number>();
  for (const part of pages.split(',')) {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    for (let p = a; p <= (b ?? a) && p <= pageCount; p++) if (p >= 1) set.add(p);
  }
  return [...set].sort((x, y) => x - y);
}

/**
 * How many pages qpdf writes for a `pages` selection: every page each time it is named (`1,1,1`
 * is three pages), reversed ranges (`5-1`) too, each range clamped to the document. Counted, not
 * listed, so a selection of millions costs nothing to check.
 */
export function pagesMade(pages: string | undefined, pageCount: number): number {
  if (!pages) return pageCount;
  let made = 0;
  for (const part of pages.split(',')) {
    const [a, b = a] = part.split('-').map(Number) as [number, number?];
    const low = Math.max(1, Math.min(a, b));
    const high = Math.min(pageCount, Math.max(a, b));
    if (high >= low) made += high - low + 1;
  }
  return made;
}

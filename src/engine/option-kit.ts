import { z } from 'zod';

/**
 * What a converter declares for each option it honours: the schema that checks a value (from an
 * API request's `options` or the CLI's `-O key=value`) and one line for the docs, the CLI help and
 * the OpenAPI document. Text values (from `-O`) are read as the number or boolean they spell.
 */
export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  description: string;
  /**
   * A password or the like: kept sealed in the records (src/core/option-secrets.ts) under a key
   * the records never hold, dropped when the request ends, opened only by the worker that runs
   * the conversion, and never written to a log, timeline or answer.
   */
  secret?: boolean;
  /** With it the step writes several files (a split), so it can only be a conversion's last step. */
  splits?: boolean;
  /** Options that cannot be asked with this one, each with the reason given in the refusal. */
  excludes?: Readonly<Record<string, string>>;
  /**
   * When a request asks operations of several engines at once, they run in this order, lowest
   * first (OPERATION_ORDER); options without one (pages, password) go to the first step.
   */
  order?: number;
  /** Given to every step of a chain whose engine honours it, not to one (keep_active_content). */
  everyStep?: boolean;
}

/**
 * The order of operations on a document, whatever order a request gives them in: redaction, blank
 * pages removed and cropping first (they work on the pages as given), then what is drawn over the
 * pages, rotation, flattening, several pages a sheet (after flattening: a sheet shows pages, not
 * their annotations), OCR, greyscale, compression, removal of active content (sanitize, so that
 * PDF/A and document information asked with it are written after), PDF/A, document information, fast web view,
 * encryption, a signature (it covers the bytes of the file as it is returned), and a split
 * (several files) at the very end.
 */
export const OPERATION_ORDER = {
  redact: 5,
  removeBlank: 6,
  crop: 8,
  overlay: 10,
  rotate: 20,
  rotatePages: 21,
  flatten: 30,
  layout: 32,
  ocr: 35,
  greyscale: 38,
  compress: 40,
  sanitize: 45,
  pdfa: 50,
  metadata: 60,
  linearize: 70,
  encrypt: 90,
  sign: 95,
  split: 100,
} as const;

/** The options one converter honours, by name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The typed values of a set of declared options, each optional. */
export type OptionValues<T extends OptionSpecs> = { readonly [K in keyof T]?: z.output<T[K]['schema']> };

export function defineOption<S extends z.ZodType>(
  schema: S,
  description: string,
  traits: Pick<OptionSpec, 'secret' | 'splits' | 'excludes' | 'order' | 'everyStep'> = {},
): OptionSpec<S> {
  return { schema, description, ...traits };
}

/** `-O dpi=300` arrives as text: numbers and booleans are read from it before checking. */
const numberFromText = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v);
const textFromNumber = (v: unknown) => (typeof v === 'number' ? String(v) : v);
const booleanFromText = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);

function numeric(kind: 'an integer' | 'a number', min: number, max: number) {
  const range = { error: `must be between ${min} and ${max}` };
  const base = z.number({ error: `must be ${kind}` });
  return z.preprocess(
    numberFromText,
    (kind === 'an integer' ? base.int({ error: 'must be an integer' }) : base)
      .min(min, range)
      .max(max, range),
  );
}

export const int = (min: number, max: number) => numeric('an integer', min, max);
export const num = (min: number, max: number) => numeric('a number', min, max);
export const bool = () => z.preprocess(booleanFromText, z.boolean({ error: 'must be true or false' }));

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(textFromNumber, z.enum(values, { error: `must be one of ${values.join(', ')}` }));
}

/** One of a few numbers (a sample rate, an angle), given as a number or as its text. */
export function oneOfNumbers<const T extends readonly [number, ...number[]]>(values: T) {
  return z.preprocess(
    numberFromText,
    z.union(
      values.map((v) => z.literal(v)),
      { error: `must be one of ${values.join(', ')}` },
    ),
  );
}

export function like(pattern: RegExp, example: string) {
  return z.preprocess(
    textFromNumber,
    z
      .string({ error: 'must be a string' })
      .regex(pattern, { error: `must look like ${example}` })
      .meta({ examples: [example] }),
  );
}

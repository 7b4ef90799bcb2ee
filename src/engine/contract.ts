import type { FormatFamily, FormatId } from '../formats/index.js';
import type { ArtifactChecks } from './checks.js';
import type { OptionSpecs } from './option-kit.js';
import type { ConversionOptions } from './options.js';

/**
 * The family of a conversion edge: the source format's family, or one of the special families
 * (`pictures`: the pictures a document holds taken out of it, as they are stored; `report`: what
 * a file is and carries, as a report: a PDF's pages, metadata and checked signatures).
 */
export const SPECIAL_FAMILIES = ['ocr', 'voice', 'pictures', 'report'] as const;
export type ConversionFamily = FormatFamily | (typeof SPECIAL_FAMILIES)[number];

/** One step an engine can do: `from` to `to`. */
export interface ConversionEdge {
  from: FormatId;
  to: FormatId;
  family: ConversionFamily;
  /** True when the step throws information away (re-encoding, rasterising, flattening). */
  lossy: boolean;
  /** Relative cost used to choose between paths: 1 in-process, ~5 fast spawn, ~20 office/ebook. */
  cost: number;
  /** The step writes one file per page (pdf to png) instead of one file. */
  multiOutput?: boolean;
  /**
   * The step is a conversion only on its own: it reads the user's file and nothing follows it
   * (a Word file saved macro-enabled is wanted as such, a CSV poured into one is not).
   */
  alone?: true;
  /**
   * True for options under which the planner leaves this step out and takes another path, e.g.
   * LibreOffice's PDF layout import gives way to the text path for `mode: "text"`.
   */
  skipWhen?: (options: ConversionOptions) => boolean;
  /**
   * The converter's options this step honours; without it, all of them. A page-size option means
   * nothing to the same engine's image edges, say.
   */
  options?: readonly string[];
  /**
   * Versions of the source format, as detection names them (`PowerPoint 4.0`), that this step
   * cannot open, each with the reason: a file of one is refused when planned, not failed in the engine.
   */
  unreadVersions?: Readonly<Record<string, string>>;
}

export interface EngineProbe {
  ok: boolean;
  version?: string;
  /** Path of the binary, or the library name for in-process engines. */
  path?: string;
  /** Why the engine is not usable. */
  detail?: string;
}

export interface StepContext {
  signal: AbortSignal;
  /** Wall-clock limit for this step; processes are killed (whole group) past it. */
  timeoutMs: number;
  /** A scratch folder of this step's own, removed with the conversion's temp folder. */
  workDir: string;
  /**
   * The conversion's own temp folder (its input and every step's folders): all of the disk a
   * confined engine process sees (src/run/confine.ts). Without it engines run unconfined.
   */
  jobDir?: string;
  /** Progress within the step, 0 to 1. */
  progress(fraction: number): void;
  /** A line for the request's timeline. */
  log(message: string): void;
  /** Spawned processes run at a lower CPU priority (Converter.background). */
  background?: boolean;
}

export interface StepRequest {
  edge: ConversionEdge;
  /** The input file (inside the conversion's temp folder). */
  input: string;
  /** The folder to write outputs into (empty, owned by this step). */
  outDir: string;
  /** Validated options for the whole conversion; a step reads those that concern it. */
  options: ConversionOptions;
}

/** Several files of one format joined into one, in order (a merge of PDFs). */
export interface MergeRequest {
  /** The files, in the order they are joined, each with the name its bookmark shows. */
  inputs: readonly { path: string; title: string }[];
  outDir: string;
  /** Validated options; the merge reads those it declares. */
  options: ConversionOptions;
}

/** What a repair gave: a readable copy of a damaged file, and what it could not bring back. */
export interface RepairResult {
  /** The engine whose recovery gave the copy. */
  by: string;
  /** Pages the copy has. */
  pages: number;
  /** What was lost, for the timeline ("1 of 3 pages lost"); undefined when nothing is known lost. */
  lost?: string;
}

/** An engine's repair: a damaged file of `format` written again as a readable one, before refusal. */
export interface RepairCapability {
  format: FormatId;
  run(input: string, output: string, ctx: StepContext): Promise<RepairResult>;
}

/** An engine's merge: joins several files of `format` into one file of it. */
export interface MergeCapability {
  format: FormatId;
  /** The converter's options the merge honours (they apply to no single-file step). */
  options: readonly string[];
  run(request: MergeRequest, ctx: StepContext): Promise<StepResult>;
  /**
   * Opens one input already in `format` as the merge will (a damaged file, a locked one, no pages
   * all throw), writing nothing: every input is checked before the first engine of a merge runs.
   */
  check?(path: string, ctx: StepContext): Promise<void>;
}

export interface StepResult {
  /** Output files in order (pages in page order). */
  files: string[];
}

/** One step on bytes in memory: what an in-process engine's `inMemory.run` gets. */
export interface InMemoryStep {
  edge: ConversionEdge;
  input: Uint8Array;
  options: ConversionOptions;
  /** Outputs larger than this get no checks (the runner's limit for files too). */
  checksMaxBytes: number;
}

export interface InMemoryOutput {
  output: Uint8Array;
  /** A line for the request's timeline (as StepContext.log). */
  note?: string;
  /** What the output kept, measured where it was made (artifactChecks of the file path). */
  checks?: ArtifactChecks;
}

export interface Converter {
  /** Engine name, also used in the catalog and the timeline (`libreoffice`). */
  name: string;
  /** One line for `doctor` and docs. */
  description: string;
  /** Debian packages that provide the engine; `doctor` prints the apt-get line for missing ones. */
  packages: string[];
  /** The steps this engine offers. */
  edges: ConversionEdge[];
  /**
   * The options this engine honours, each with its schema: the planner accepts an option for a
   * conversion when a step's engine declares it (shared ones come from src/engine/shared-options.ts).
   */
  options?: OptionSpecs;
  /** Find the engine and its version. Cheap and side-effect free; cached by the registry. */
  probe(): Promise<EngineProbe>;
  /**
   * Optional deeper check for `doctor` only (it may start the engine): lines saying how the engine
   * will run, such as a warm pool that could not start and the fallback in use.
   */
  diagnose?(): Promise<string[]>;
  /**
   * Optional: start now what the engine keeps running between steps (a browser with contexts
   * ready, a LibreOffice instance), so the first conversion after a server starts does not wait
   * for it. Throws when it cannot start.
   */
  warm?(): Promise<void>;
  /**
   * Optional: stop what the engine keeps running between steps (a warm browser whose pipes hold
   * the process open). The next run starts it again.
   */
  close?(): Promise<void>;
  /**
   * Optional: checks of a step's options that need this machine (an OCR language installed), run
   * when a request is validated, so a request that cannot run is refused before it is filed.
   * Throws INVALID_REQUEST.
   */
  checkOptions?(options: ConversionOptions, edge: ConversionEdge): Promise<void>;
  /** Run one step. Throws FileconvError (detail codes) or any error (becomes CONVERT_FAILED). */
  run(request: StepRequest, ctx: StepContext): Promise<StepResult>;
  /**
   * Optional, for in-process engines: the steps it can do on bytes in memory, output checks
   * included, so a small conversion needs no scratch folders (src/run/in-memory.ts).
   */
  inMemory?: {
    accepts(edge: ConversionEdge): boolean;
    run(step: InMemoryStep, ctx: { signal: AbortSignal; timeoutMs: number }): Promise<InMemoryOutput>;
  };
  /** Optional: joins several files into one (qpdf: PDFs), for requests with several inputs. */
  merge?: MergeCapability;
  /** Optional: repairs a damaged input that every engine of its step refused as malformed. */
  repair?: RepairCapability;
  /** How many runs of this engine may go at once (default 2). */
  concurrency?: number;
  /** Default wall-clock limit of one step in ms (default 120 s). */
  timeoutMs?: number;
  /**
   * Its runs are long batch work (a video transcode): its processes run at a lower CPU priority,
   * so on a busy machine the server's own thread and short conversions come first.
   */
  background?: boolean;
}

/** The options an engine honours on one of its edges: the edge's list, else all it declares. */
export function edgeOptionNames(
  converter: Pick<Converter, 'options'>,
  edge: ConversionEdge,
): readonly string[] {
  return edge.options ?? Object.keys(converter.options ?? {});
}

/** Identity helper that gives converter files their type. */
export function defineConverter(converter: Converter): Converter {
  return converter;
}

/** Shorthand to declare many edges: every `from` to every `to` (skipping same-format pairs). */
export function edgesBetween(
  froms: readonly FormatId[],
  tos: readonly FormatId[],
  props:
    | Omit<ConversionEdge, 'from' | 'to'>
    | ((from: FormatId, to: FormatId) => Omit<ConversionEdge, 'from' | 'to'>),
): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const from of froms) {
    for (const to of tos) {
      if (from === to) continue;
      edges.push({ from, to, ...(typeof props === 'function' ? props(from, to) : props) });
    }
  }
  return edges;
}

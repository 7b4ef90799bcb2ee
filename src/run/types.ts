import type { ArtifactChecks } from '../engine/checks.js';
import type { FormatId } from '../formats/index.js';
import type { Plan } from '../plan/types.js';
import type { EngineWork } from './work.js';

export type ProgressStage = 'queued' | 'converting' | 'storing' | 'done';

/** decisions.md's progress object. */
export interface Progress {
  percent: number;
  stage: ProgressStage;
  step: number;
  steps: number;
}

/** A timeline event from the runner (step started, engine tried, fallback, step done). */
export interface RunEvent {
  kind: string;
  message: string;
}

export interface ConversionJob {
  /** Path of the input file; it is read, never moved or deleted. */
  input: string;
  from: FormatId;
  to: FormatId;
  /** Raw options (validated by the runner against the plan's families). */
  options?: unknown;
  /** Folder the outputs are written into (created if missing). */
  outDir: string;
  /** Base name for outputs (without extension); default `output`. */
  baseName?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  onEvent?: (event: RunEvent) => void;
  /**
   * The caller has already refused a file that is not the kind of thing its declared format is
   * (the server does at intake, on the same stored bytes), so the runner does not detect it again.
   */
  declaredChecked?: boolean;
  /** Where the engines' work is added up, when the caller meters it. */
  work?: EngineWork;
}

export interface ConversionOutputFile {
  /** Artifact name: the target id (`pdf`) for one file, `png-1`, `png-2`... for pages. */
  name: string;
  path: string;
  format: FormatId;
  /** What the output kept, measured from it (and the source for the words). */
  checks?: ArtifactChecks;
}

export interface ConversionResult {
  plan: Plan;
  /** Output files in order; several for per-page outputs (the caller may zip them). */
  files: ConversionOutputFile[];
}

import type { ArtifactChecks } from '../../src/engine/checks.js';
import type { ErrorCode } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';

/** What crosses the thread boundary between the data converter and its pool worker. */

export interface DataTask {
  from: FormatId;
  to: FormatId;
  input: string;
  output: string;
  /** The engine output cap (engineOutputLimit of the main thread). */
  maxOutputBytes: number | null;
  /** The workbook sheet asked for (options.sheet): a name or a 1-based position. */
  sheet?: string;
}

/** A small text-to-text conversion on bytes (converters/data.ts's inMemory). */
export interface DataBytesTask {
  from: FormatId;
  to: FormatId;
  input: Uint8Array;
  maxOutputBytes: number | null;
  /** Larger outputs get no checks, as the runner's attachChecks. */
  checksMaxBytes: number;
}

/** A FileconvError crosses the thread boundary as plain data; anything else as its message. */
export type DataTaskResult =
  | { ok: true; note?: string; output?: Uint8Array; checks?: ArtifactChecks; files?: string[] }
  | { ok: false; code?: ErrorCode; message: string };

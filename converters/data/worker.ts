import { type ErrorCode, isFileconvError } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';
import { convertData } from './convert.js';

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

/** A FileconvError crosses the thread boundary as plain data; anything else as its message. */
export type DataTaskResult = { ok: true; note?: string } | { ok: false; code?: ErrorCode; message: string };

/** The pool worker's task (piscina calls the default export). */
export default async function runDataTask(task: DataTask): Promise<DataTaskResult> {
  try {
    const { note } = await convertData(task);
    return { ok: true, note };
  } catch (e) {
    if (isFileconvError(e)) return { ok: false, code: e.code, message: e.message };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

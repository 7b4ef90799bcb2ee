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
}

/** A FileconvError crosses the thread boundary as plain data; anything else as its message. */
export type DataTaskResult = { ok: true } | { ok: false; code?: ErrorCode; message: string };

/** The pool worker's task (piscina calls the default export). */
export default async function runDataTask(task: DataTask): Promise<DataTaskResult> {
  try {
    await convertData(task.from, task.to, task.input, task.output, task.maxOutputBytes);
    return { ok: true };
  } catch (e) {
    if (isFileconvError(e)) return { ok: false, code: e.code, message: e.message };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

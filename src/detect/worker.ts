import { type ErrorCode, isFileconvError } from '../errors/index.js';
import { type DetectOptions, type DetectReport, detect } from './index.js';

export interface DetectTask {
  file: string;
  options: DetectOptions;
}

/** A FileconvError crosses the thread boundary as plain data; anything else as its message. */
export type DetectTaskResult =
  | { ok: true; report: DetectReport }
  | { ok: false; code?: ErrorCode; message: string };

/** The pool worker's task (piscina calls the default export): one detection, as detect() gives it. */
export default async function runDetectTask(task: DetectTask): Promise<DetectTaskResult> {
  try {
    // The report is plain data: it crosses the thread whole, so no field (encoding source and
    // confidence, version) is left behind.
    return { ok: true, report: await detect(task.file, task.options) };
  } catch (e) {
    if (isFileconvError(e)) return { ok: false, code: e.code, message: e.message };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

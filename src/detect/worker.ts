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
    const r = await detect(task.file, task.options);
    return {
      ok: true,
      report: {
        declared: r.declared,
        detected: r.detected,
        match: r.match,
        mime: r.mime,
        confidence: r.confidence,
        ...(r.encrypted ? { encrypted: r.encrypted } : {}),
        ...(r.encoding ? { encoding: r.encoding } : {}),
      },
    };
  } catch (e) {
    if (isFileconvError(e)) return { ok: false, code: e.code, message: e.message };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

import { isFileconvError } from '../../src/errors/index.js';
import { convertData, convertDataBytes } from './convert.js';
import type { DataBytesTask, DataTask, DataTaskResult } from './tasks.js';

export type { DataBytesTask, DataTask, DataTaskResult } from './tasks.js';

/** The pool worker's task (piscina calls the default export). */
export default async function runDataTask(task: DataTask | DataBytesTask): Promise<DataTaskResult> {
  try {
    if (typeof task.input !== 'string') {
      const { output, checks } = convertDataBytes(task as DataBytesTask);
      return { ok: true, output, checks };
    }
    const { note, files } = await convertData(task as DataTask);
    return { ok: true, note, files };
  } catch (e) {
    if (isFileconvError(e)) return { ok: false, code: e.code, message: e.message };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

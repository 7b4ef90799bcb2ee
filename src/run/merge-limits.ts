import { FileconvError } from '../errors/index.js';

/**
 * Inputs one merge takes at most: each is a conversion of its own and each holds files open while
 * they are joined. Kept apart from the merge runner so the server's request schemas can name it
 * without loading the engines.
 */
export const MAX_MERGE_INPUTS = 100;

/** INVALID_REQUEST past MAX_MERGE_INPUTS, and for a "merge" of fewer than two inputs. */
export function checkInputCount(count: number): void {
  if (count > MAX_MERGE_INPUTS)
    throw new FileconvError(
      'INVALID_REQUEST',
      `A merge takes at most ${MAX_MERGE_INPUTS} inputs; ${count} were sent. Merge them in groups, then merge the results.`,
    );
  if (count < 2) throw new FileconvError('INVALID_REQUEST', 'A merge needs at least two inputs.');
}

/** "input 2 (b.docx)": how timelines and errors name an input (index from 0). */
export function inputLabel(index: number, name: string): string {
  return `input ${index + 1} (${name})`;
}

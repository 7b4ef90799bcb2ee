import { FileconvError } from '../../src/errors/index.js';

/**
 * How deep data may nest: far past any real document (configuration files and API answers stay
 * under a few dozen levels), well short of what the recursive writers (YAML, XML, TOML) and
 * parsers can follow before the thread's stack runs out.
 */
export const MAX_NESTING = 1_000;

/** A stack overflow (some parsers wrap it in an error of their own), or a parser's own depth bound. */
export const overflowed = (e: unknown): boolean =>
  e instanceof RangeError ||
  (e instanceof Error && /call stack size|nested tags exceeded|excessively nested/i.test(e.message));

function tooDeep(cause?: unknown): FileconvError {
  return new FileconvError(
    'INPUT_TOO_LARGE',
    `The data is nested more than ${MAX_NESTING} levels deep; the data engine reads no deeper.`,
    { cause },
  );
}

/** Refuses a value nested deeper than MAX_NESTING, measured with a loop (no recursion to overflow). */
export function checkNesting(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_NESTING) throw tooDeep();
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
}

/**
 * Runs a parse or a write, turning a stack overflow (a parser that recursed past the thread's
 * stack before the depth could be measured) into the same clear refusal.
 */
export function withinNesting<T>(work: () => T): T {
  try {
    const result = work();
    if (result instanceof Promise)
      return result.catch((e: unknown) => {
        throw overflowed(e) ? tooDeep(e) : e;
      }) as T;
    return result;
  } catch (e) {
    throw overflowed(e) ? tooDeep(e) : e;
  }
}

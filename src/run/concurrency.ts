import { FileconvError } from '../errors/index.js';

// The project's concurrency limits, in one place: a semaphore for work that arrives over time
// (engine runs), and a bounded map for a list known up front (batches, self-test samples).

/** A counting semaphore: at most `limit` holders at once, waiters served in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Waits for a slot; resolves to its release function. Rejects if `signal` aborts while waiting. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(cancelled());
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(cancelled());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters.shift()?.();
    };
  }
}

function cancelled(): FileconvError {
  return new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
}

const perEngine = new Map<string, Semaphore>();

/** The shared semaphore limiting concurrent runs of one engine (created on first use). */
export function engineSemaphore(name: string, limit: number): Semaphore {
  let s = perEngine.get(name);
  if (!s) {
    s = new Semaphore(Math.max(1, limit));
    perEngine.set(name, s);
  }
  return s;
}

/** Maps `items` through `work` with at most `limit` running at once; results keep the items' order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return results;
}

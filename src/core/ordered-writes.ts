/**
 * Store writes made one after another, in the order they were asked for. A run reports events and
 * progress from engine callbacks without waiting; SQLite applies such writes in call order, but a
 * database answering on several pooled connections may apply them in any order, which would shuffle
 * the timeline and could let a late progress write land after the request's end.
 */
export interface OrderedWrites {
  /** Queues `write` behind every earlier one; the promise settles with this write alone. */
  write<T>(write: () => Promise<T>): Promise<T>;
  /** Resolves once every write queued so far has settled, whether it succeeded or not. */
  settled(): Promise<void>;
}

export function orderedWrites(): OrderedWrites {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    write(write) {
      const next = tail.then(write);
      tail = next.catch(() => {});
      return next;
    },
    async settled() {
      await tail;
    },
  };
}

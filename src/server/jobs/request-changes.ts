import { EventEmitter } from 'node:events';

/**
 * In-process signal that a request's status changed (requeued, succeeded, failed), so a
 * long-polling reader wakes at once instead of re-reading the store on a timer. Only this process's
 * queue fires it; the store stays the source of truth and is read again after the wait.
 */
export class RequestChanges {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Each long-polling client holds one listener; many may wait on the same request.
    this.emitter.setMaxListeners(0);
  }

  /** Tells everyone waiting on `id` that its status changed. */
  changed(id: string): void {
    this.emitter.emit(id);
  }

  /** How many readers are waiting on `id` now. */
  waiting(id: string): number {
    return this.emitter.listenerCount(id);
  }

  /**
   * Resolves when `id` changes, after `ms`, or when `signal` aborts (client gone), whichever comes
   * first; always removes its listener and timer.
   */
  waitFor(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (ms <= 0 || signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(id, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.once(id, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

import type { IncomingMessage } from 'node:http';
import { FileconvError } from '../errors/index.js';

/**
 * The pace an upload must keep (like Apache's mod_reqtimeout): `timeoutMs` to start with, and one
 * more second for every `minRate` bytes received. A client trickling a byte a second runs out after
 * about `timeoutMs`; a slow but real link keeps earning time; a stalled one is stopped.
 */
export interface UploadPace {
  timeoutMs: number;
  /** Bytes per second an upload must average once its first `timeoutMs` are spent. */
  minRate: number;
}

/** INTAKE_FAILED for an upload that fell behind its pace: answered 408 where other intake failures are 422. */
export class UploadTooSlowError extends FileconvError {
  constructor(pace: UploadPace) {
    super(
      'INTAKE_FAILED',
      `The upload was too slow: it must finish within ${Math.round(pace.timeoutMs / 1000)} s plus 1 s per ${pace.minRate} bytes.`,
    );
  }
}

/** Calls `onTooSlow` once if the body falls behind `pace`; returns a function that stops watching. */
export function watchUploadPace(
  incoming: IncomingMessage,
  pace: UploadPace,
  onTooSlow: (error: UploadTooSlowError) => void,
): () => void {
  const started = Date.now();
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
  };
  incoming.on('data', count);
  const check = () => {
    const deadline = started + pace.timeoutMs + (received / pace.minRate) * 1000;
    if (Date.now() < deadline) {
      timer = setTimeout(check, Math.min(1000, deadline - Date.now()) + 1);
      return;
    }
    stop();
    onTooSlow(new UploadTooSlowError(pace));
  };
  let timer = setTimeout(check, pace.timeoutMs);
  const stop = () => {
    clearTimeout(timer);
    incoming.off('data', count);
  };
  return stop;
}

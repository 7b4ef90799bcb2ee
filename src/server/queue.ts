import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CONVERSION_DETAIL_CODES, isFileconvError, messageFor } from '../errors/index.js';
import { extensionOf, getFormat } from '../formats/index.js';
import type { ScratchSpace } from '../run/scratch.js';
import type { ConversionOutputFile, Progress } from '../run/types.js';
import type { ArtifactRecord, BlobStore, RequestRecord, RequestStore, StoredError } from '../store/types.js';
import { ConversionTrace, type QueueObserver } from './conversion-trace.js';
import type { ServerEngine } from './engine.js';
import { RequestChanges } from './request-changes.js';

export interface QueueDeps {
  store: RequestStore;
  blobs: BlobStore;
  scratch: ScratchSpace;
  engine: ServerEngine;
  concurrency: number;
  retentionMs: number;
  log(message: string): void;
  /** Gives back the daily quota unit of a failed conversion; true when one was given back. */
  refund?(request: RequestRecord): Promise<boolean>;
  /** Told when each conversion ends (metrics, logs, webhooks). */
  observers?: readonly QueueObserver[];
}

/** A conversion interrupted more often than this (the server died each time) is failed, not retried. */
export const MAX_ATTEMPTS = 3;

async function fileDigest(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return { size: (await stat(path)).size, sha256: hash.digest('hex') };
}

function stem(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return (dot > 0 ? filename.slice(0, dot) : filename) || 'output';
}

/** The error a failed conversion's request shows: a detail code with its fixed message, else CONVERT_FAILED. */
export function requestError(e: unknown): StoredError {
  if (isFileconvError(e)) {
    if ((CONVERSION_DETAIL_CODES as readonly string[]).includes(e.code))
      return { code: e.code, message: messageFor(e.code) };
    if (e.code === 'CONVERT_FAILED') return { code: 'CONVERT_FAILED', message: e.message };
  }
  return { code: 'CONVERT_FAILED', message: messageFor('CONVERT_FAILED') };
}

class ShutdownAbort extends Error {}

/**
 * The work queue: conversions wait in the request store (so a restart loses nothing) and at most
 * `concurrency` run at once in this process.
 */
export class ConversionQueue {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private accepting = true;
  /** One claiming loop at a time; a pump asked for while it runs makes it look again. */
  private pumping = false;
  private pumpAgain = false;
  /** Fired on every status change this queue makes; long-polling readers wait on it. */
  readonly changes = new RequestChanges();

  constructor(private readonly deps: QueueDeps) {}

  private event(id: string, kind: string, message: string): Promise<void> {
    return this.deps.store.addEvent(id, { at: Date.now(), kind, message });
  }

  /**
   * Start-up recovery: conversions left working by a process that stopped are queued again while
   * their input is on disk, else failed with a clear message; none stays running.
   */
  async recover(): Promise<void> {
    const { store, blobs } = this.deps;
    const now = Date.now();
    const { requeued, failed } = await store.requeueInterrupted(now, MAX_ATTEMPTS);
    for (const r of requeued) {
      if (r.inputKey && (await blobs.stat(r.inputKey))) {
        await this.event(r.id, 'resumed', 'The server restarted during the conversion; it was queued again.');
      } else {
        failed.push(r);
      }
    }
    for (const r of failed) {
      const message =
        r.attempts >= MAX_ATTEMPTS
          ? `The server stopped during the conversion ${r.attempts} times; it was given up.`
          : 'The server stopped during the conversion and its input was lost.';
      await this.dropInput(r);
      await this.event(r.id, 'failed', message);
      await this.refund(r);
      await store.finishFailed(r.id, { code: 'CONVERT_FAILED', message }, now);
      this.changes.changed(r.id);
    }
  }

  /** Conversions waiting for a slot. */
  depth(): Promise<number> {
    return this.deps.store.countQueued();
  }

  /** Conversions running in this process now. */
  get active(): number {
    return this.running.size;
  }

  /** An observer that throws must not fail the conversion it watches. */
  private async tell(trace: ConversionTrace, id: string, outcome: 'succeeded' | 'failed'): Promise<void> {
    const request = await this.deps.store.getRequest(id);
    if (!request) return;
    const end = trace.end(request, outcome);
    for (const o of this.deps.observers ?? []) {
      try {
        o.ended(end);
      } catch (e) {
        this.deps.log(`observer of ${id} failed: ${(e as Error).message}`);
      }
    }
  }

  /** Starts queued conversions while slots are free. */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.claimWhileFree()
      .catch((e) => this.deps.log(`claiming queued conversions failed: ${(e as Error).message}`))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  private async claimWhileFree(): Promise<void> {
    while (this.accepting && this.running.size < this.deps.concurrency) {
      const next = await this.deps.store.claimNextQueued(Date.now());
      if (!next) return;
      if (!this.accepting) {
        // stop() came while the claim was on its way: the conversion waits for the next start.
        await this.deps.store.requeue(next.id, Date.now());
        return;
      }
      const controller = new AbortController();
      const done = this.run(next, controller.signal).finally(() => {
        this.running.delete(next.id);
        this.pump();
      });
      this.running.set(next.id, { controller, done });
      this.changes.changed(next.id);
    }
  }

  /**
   * Stops starting work and waits up to `graceMs` for running conversions; those still running then
   * are stopped and left queued for the next start.
   */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([all().then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      for (const r of this.running.values()) r.controller.abort(new ShutdownAbort('shutdown'));
      await all();
    }
  }

  /** Failed conversions do not count against the day's quota (the day the unit was drawn from). */
  private async refund(r: RequestRecord): Promise<void> {
    if (!r.quota || !this.deps.refund) return;
    try {
      if (await this.deps.refund(r))
        await this.event(
          r.id,
          'refunded',
          `The failed conversion was not counted: one unit of ${r.quota.kind} for ${r.quota.day} was given back.`,
        );
    } catch (e) {
      this.deps.log(`refund for ${r.id} failed: ${(e as Error).message}`);
    }
  }

  private async dropInput(r: RequestRecord): Promise<void> {
    if (!r.inputKey) return;
    await this.deps.blobs.delete(r.inputKey).catch(() => {});
    await this.deps.store.clearInputKey(r.id);
  }

  private async run(r: RequestRecord, signal: AbortSignal): Promise<void> {
    const { store, blobs, scratch, engine } = this.deps;
    let outDir: string | undefined;
    let lastPercent = -1;
    let lastStage = '';
    const trace = new ConversionTrace();
    const onProgress = (p: Progress) => {
      // Writes only when something a poller would see changed.
      const percent = Math.floor(p.percent);
      if (percent === lastPercent && p.stage === lastStage) return;
      lastPercent = percent;
      lastStage = p.stage;
      store
        .updateProgress(r.id, { ...p, percent }, Date.now())
        .catch((e) => this.deps.log(`progress of ${r.id} not stored: ${(e as Error).message}`));
    };
    try {
      if (!r.inputKey || !r.from || !r.to) throw new Error('queued request without input or conversion');
      await this.event(
        r.id,
        'started',
        `Conversion ${r.conversion} started${r.attempts > 1 ? ` (attempt ${r.attempts})` : ''}.`,
      );
      onProgress({ percent: 0, stage: 'converting', step: 1, steps: r.progress.steps || 1 });
      const { from, to, inputKey } = r;
      const dir = await scratch.dir(r.id);
      outDir = dir;
      const base = stem(r.filename);
      const result = await blobs.withLocalCopy(inputKey, join(dir, 'in'), (input) =>
        engine.convert({
          input,
          from,
          to,
          options: r.options ?? {},
          outDir: join(dir, 'out'),
          baseName: base,
          signal,
          onProgress,
          onEvent: (e) => {
            trace.event(e.kind, e.message);
            this.event(r.id, e.kind, e.message).catch(() => {});
          },
        }),
      );
      onProgress({
        percent: 99,
        stage: 'storing',
        step: result.plan.steps.length,
        steps: result.plan.steps.length,
      });
      const artifacts = await this.storeArtifacts(r, result.files, outDir, base);
      // Input and timeline first: a poller that sees the new status sees them settled too.
      await this.dropInput(r);
      const names = artifacts.map((a) => a.name).join(', ');
      await this.event(
        r.id,
        'succeeded',
        `Conversion succeeded: ${artifacts.length === 1 ? 'artifact' : 'artifacts'} ${names}.`,
      );
      await store.finishSucceeded(r.id, artifacts, Date.now());
      this.changes.changed(r.id);
      await this.tell(trace, r.id, 'succeeded');
    } catch (e) {
      if (signal.aborted && signal.reason instanceof ShutdownAbort) {
        await store.requeue(r.id, Date.now());
        this.changes.changed(r.id);
        await this.event(
          r.id,
          'requeued',
          'The server shut down during the conversion; it will run again at the next start.',
        );
        return;
      }
      if (!isFileconvError(e))
        this.deps.log(`conversion ${r.id} failed: ${(e as Error)?.stack ?? String(e)}`);
      const error = requestError(e);
      await this.dropInput(r);
      await this.event(r.id, 'failed', `Conversion failed (${error.code}): ${error.message}`);
      await this.refund(r);
      await store.finishFailed(r.id, error, Date.now());
      this.changes.changed(r.id);
      await this.tell(trace, r.id, 'failed');
    } finally {
      if (outDir) await rm(outDir, { recursive: true, force: true }).catch(() => {});
    }
  }

  private async storeArtifacts(
    r: RequestRecord,
    files: readonly ConversionOutputFile[],
    outDir: string,
    base: string,
  ): Promise<ArtifactRecord[]> {
    const expiresAt = Date.now() + this.deps.retentionMs;
    const entries: (ConversionOutputFile & { filename: string })[] = files.map((f, i) => ({
      ...f,
      filename:
        files.length === 1 ? `${base}.${extensionOf(f.format)}` : `${base}-${i + 1}.${extensionOf(f.format)}`,
    }));
    if (files.length > 1) {
      const zipPath = join(outDir, 'all.zip');
      await this.deps.engine.zip(
        entries.map((e) => ({ path: e.path, name: e.filename })),
        zipPath,
      );
      entries.push({ name: 'zip', path: zipPath, format: 'zip', filename: `${base}.zip` });
    }
    const artifacts: ArtifactRecord[] = [];
    for (const e of entries) {
      const { size, sha256 } = await fileDigest(e.path);
      const blobKey = `artifacts/${r.id}/${e.name.replace(/[^A-Za-z0-9_-]/g, '_')}.${extensionOf(e.format)}`;
      await this.deps.blobs.putFile(blobKey, e.path);
      artifacts.push({
        requestId: r.id,
        name: e.name,
        format: e.format,
        mime: getFormat(e.format)?.mime ?? 'application/octet-stream',
        size,
        sha256,
        blobKey,
        filename: e.filename,
        expiresAt,
        expired: false,
        ...(e.checks ? { checks: e.checks } : {}),
      });
    }
    return artifacts;
  }
}

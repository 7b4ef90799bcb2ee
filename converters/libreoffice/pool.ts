import { existsSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { convertersDir } from '../../src/engine/package-files.js';
import { FileconvError } from '../../src/errors/index.js';
import { findBinary } from '../../src/run/process.js';
import { type BridgeReply, OfficeInstance } from './instance.js';
import type { OfficePoolOptions, OfficePoolStatus, PoolConversion } from './options.js';
import { findUnoPython } from './python.js';

export type { OfficePoolOptions, OfficePoolStatus, PoolConversion } from './options.js';

/**
 * A small pool of warm headless LibreOffice instances. Starting soffice costs seconds and a
 * conversion on a warm one a fraction of that, so instances live across conversions, each with
 * its own locked-down profile and UNO pipe. An instance is replaced after a number of
 * conversions, when it grows too big, when a conversion overruns its time, or when it crashes.
 * When the pool cannot run here, officePoolAvailable() says why and the converter falls back to
 * one-shot `soffice --convert-to`.
 */

interface Slot {
  instance?: OfficeInstance;
  busy: boolean;
}

interface Waiter {
  grant(slot: Slot): void;
  fail(error: FileconvError): void;
}

type Availability = { ok: boolean; reason?: string };

/** A pool that failed to start (rather than missing a part) is tried again after this long. */
const START_RETRY_MS = 5 * 60_000;

const GIB = 1024 ** 3;

let overrides: OfficePoolOptions = {};
let slots: Slot[] = [];
let waiters: Waiter[] = [];
let availability: Promise<Availability> | undefined;
let settled: Availability | undefined;
let retryStartAt: number | undefined;
let launch: { soffice: string; python: string; bridgeScript: string } | undefined;
let conversions = 0;
let restarts: Record<string, number> = {};
let exitHooked = false;

function settings() {
  const envSize = Number(process.env.FILECONV_OFFICE_POOL_SIZE);
  return {
    size: Math.max(1, overrides.size ?? (envSize > 0 ? envSize : Math.min(2, availableParallelism()))),
    maxConversions: overrides.maxConversions ?? 50,
    maxRssBytes: overrides.maxRssBytes ?? GIB,
    startTimeoutMs: overrides.startTimeoutMs ?? 60_000,
  };
}

/** Replaces the pool's options; running instances are stopped first. */
export async function configureOfficePool(options: OfficePoolOptions): Promise<void> {
  await closeOfficePool();
  overrides = { ...options };
}

function bridgeScript(): string | undefined {
  const script = convertersDir('libreoffice', 'uno_bridge.py');
  return existsSync(script) ? script : undefined;
}

async function checkAvailability(): Promise<Availability> {
  const mode = (process.env.FILECONV_OFFICE_POOL ?? '').toLowerCase();
  if (['0', 'off', 'false', 'no'].includes(mode))
    return { ok: false, reason: 'disabled by FILECONV_OFFICE_POOL' };
  const soffice = overrides.soffice
    ? findBinary([overrides.soffice])
    : findBinary(['soffice', 'libreoffice']);
  if (!soffice) return { ok: false, reason: 'soffice not found' };
  const python = await findUnoPython(overrides.python ?? (process.env.FILECONV_UNO_PYTHON || undefined));
  if (!python.ok) return { ok: false, reason: python.reason };
  const script = bridgeScript();
  if (!script)
    return { ok: false, reason: 'the UNO bridge script (uno_bridge.py) is missing from the package' };
  launch = { soffice, python: python.path, bridgeScript: script };
  slots = Array.from({ length: settings().size }, () => ({ busy: false }));
  // Start one instance now: a pool that cannot start is reported here, not on the first document.
  const first = slots[0] as Slot;
  first.busy = true;
  try {
    first.instance = await startInstance();
    return { ok: true };
  } catch (e) {
    retryStartAt = Date.now() + START_RETRY_MS;
    return { ok: false, reason: (e as Error).message };
  } finally {
    release(first);
  }
}

/** Whether conversions can go through the pool; the first call starts an instance to find out. */
export function officePoolAvailable(): Promise<Availability> {
  if (retryStartAt !== undefined && Date.now() >= retryStartAt) {
    retryStartAt = undefined;
    availability = undefined;
  }
  availability ??= checkAvailability().then((result) => {
    settled = result;
    return result;
  });
  return availability;
}

async function startInstance(): Promise<OfficeInstance> {
  if (!launch) throw new FileconvError('CONVERT_FAILED', 'The LibreOffice pool was closed.');
  hookExit();
  try {
    return await OfficeInstance.start({ ...launch, startTimeoutMs: settings().startTimeoutMs });
  } catch (e) {
    throw new FileconvError('CONVERT_FAILED', (e as Error).message, { cause: e });
  }
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  // Last resort: nothing else runs after 'exit', and killing a process group is synchronous.
  process.on('exit', killAll);
}

function killAll(): void {
  for (const slot of slots) {
    slot.instance?.kill();
    slot.instance = undefined;
  }
}

function retire(slot: Slot, why: string, log?: (m: string) => void): void {
  slot.instance?.kill();
  slot.instance = undefined;
  restarts[why] = (restarts[why] ?? 0) + 1;
  log?.(`libreoffice pool: instance stopped (${why})`);
}

function acquire(signal: AbortSignal, timeoutMs: number): Promise<Slot> {
  if (signal.aborted)
    return Promise.reject(new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.'));
  const free = slots.find((s) => !s.busy && s.instance?.alive) ?? slots.find((s) => !s.busy);
  if (free) {
    free.busy = true;
    return Promise.resolve(free);
  }
  return new Promise<Slot>((resolve, reject) => {
    const give = (slot: Slot) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(slot);
    };
    const leave = (error: FileconvError) => {
      waiters = waiters.filter((w) => w !== waiter);
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(error);
    };
    const timer = setTimeout(
      () => leave(new FileconvError('CONVERT_FAILED', 'No LibreOffice instance became free in time.')),
      timeoutMs,
    );
    const onAbort = () => leave(new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.'));
    const waiter: Waiter = { grant: give, fail: leave };
    signal.addEventListener('abort', onAbort, { once: true });
    waiters.push(waiter);
  });
}

function release(slot: Slot): void {
  const next = waiters.shift();
  if (next && slots.includes(slot)) next.grant(slot);
  else slot.busy = false;
}

async function readyInstance(slot: Slot, log?: (m: string) => void): Promise<OfficeInstance> {
  if (slot.instance && !slot.instance.alive) retire(slot, 'crashed', log);
  if (!slot.instance) {
    log?.('libreoffice pool: starting an instance');
    slot.instance = await startInstance();
  }
  return slot.instance;
}

function afterSuccess(slot: Slot, log?: (m: string) => void): void {
  const instance = slot.instance;
  if (!instance) return;
  const { maxConversions, maxRssBytes } = settings();
  if (instance.conversions >= maxConversions) retire(slot, 'conversion limit', log);
  else if (instance.rssBytes() > maxRssBytes) retire(slot, 'memory limit', log);
}

/** The cause of a conversion stopped at its time limit, for callers that have another way. */
export class OfficeTimeout extends Error {
  constructor() {
    super('LibreOffice was stopped at its time limit');
    this.name = 'OfficeTimeout';
  }
}

function failure(
  reply: Exclude<BridgeReply, { ok: true }>,
  timeoutMs: number,
  encrypted: boolean,
): FileconvError {
  if (encrypted && reply.kind === 'disconnected') return new FileconvError('ENCRYPTED_DOCUMENT');
  switch (reply.kind) {
    case 'password':
      // A wrong password: the fixed message says how to give one, as for a missing one.
      return new FileconvError('ENCRYPTED_DOCUMENT');
    case 'load':
      // LibreOffice says only "could not load": a damaged file or one that is not what it claims.
      return new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: new Error(reply.error) });
    case 'timeout':
      return new FileconvError(
        'CONVERT_FAILED',
        `LibreOffice took longer than ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped.`,
        { cause: new OfficeTimeout() },
      );
    case 'cancelled':
      return new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
    default:
      return new FileconvError('CONVERT_FAILED', `LibreOffice failed: ${reply.error}`.slice(0, 600));
  }
}

/**
 * Converts one file through the pool: load `input` (with `inputFilter` if given), store to
 * `output` with `filter`. Throws FileconvError: MALFORMED_DOCUMENT when LibreOffice could not load
 * the input, CONVERT_FAILED otherwise. A crashed instance found before or during the call is
 * replaced and the conversion tried once more on the fresh one.
 */
export async function convertWithPool(job: PoolConversion): Promise<void> {
  const { timeoutMs, signal, log, encrypted = false, ...request } = job;
  if (signal.aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
  const availableNow = await officePoolAvailable();
  if (!availableNow.ok)
    throw new FileconvError('CONVERT_FAILED', `LibreOffice pool unavailable: ${availableNow.reason}`);
  const slot = await acquire(signal, timeoutMs);
  try {
    for (let attempt = 0; ; attempt++) {
      const instance = await readyInstance(slot, log);
      const reply = await instance.convert(request, timeoutMs, signal);
      if (reply.ok) {
        conversions += 1;
        afterSuccess(slot, log);
        return;
      }
      rmSync(request.output, { force: true });
      if (reply.kind === 'disconnected' || reply.kind === 'timeout' || reply.kind === 'cancelled') {
        retire(slot, reply.kind === 'disconnected' ? 'crashed' : reply.kind, log);
      }
      if (reply.kind === 'disconnected' && attempt === 0 && !signal.aborted && !encrypted) continue;
      throw failure(reply, timeoutMs, encrypted);
    }
  } finally {
    release(slot);
  }
}

/** The pool's state for `doctor` and the timeline. */
export function officePoolStatus(): OfficePoolStatus {
  const { size, maxConversions, maxRssBytes } = settings();
  return {
    available: settled?.ok,
    reason: settled?.reason,
    size,
    maxConversions,
    maxRssBytes,
    python: launch?.python,
    conversions,
    restarts: { ...restarts },
    instances: slots.map((s) => ({
      pid: s.instance?.officePid,
      dir: s.instance?.dir,
      conversions: s.instance?.conversions ?? 0,
      rssBytes: s.instance?.rssBytes() ?? 0,
      busy: s.busy,
    })),
  };
}

/** Stops every instance (whole process groups) and forgets the pool; the next use starts afresh. */
export async function closeOfficePool(): Promise<void> {
  await availability?.catch(() => undefined);
  killAll();
  const orphans = waiters;
  waiters = [];
  slots = [];
  availability = undefined;
  settled = undefined;
  retryStartAt = undefined;
  launch = undefined;
  conversions = 0;
  restarts = {};
  for (const w of orphans) w.fail(new FileconvError('CONVERT_FAILED', 'The LibreOffice pool was closed.'));
}

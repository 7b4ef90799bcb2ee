import { execa } from 'execa';
import type { EngineProbe, StepContext } from '../engine/contract.js';
import { FileconvError } from '../errors/index.js';
import { fontconfigEnv } from '../fonts/fontconfig.js';
import { findBinary } from './binary.js';
import { describeConfinement, engineConfinement } from './confine.js';
import { handToEngine } from './engine-files.js';
import { binaryOutput } from './probe-cache.js';
import { type EngineLimits, engineSandbox, sandboxedCommand } from './sandbox.js';

// Converters take everything they need to run an engine from this module.
export { findBinary } from './binary.js';
export { binaryOutput } from './probe-cache.js';
export type { EngineLimits } from './sandbox.js';

/**
 * Probes a binary: found on PATH, and its version from `versionArgs` output through `pattern`
 * (first capture group).
 */
export async function probeBinary(
  names: readonly string[],
  versionArgs: readonly string[],
  pattern: RegExp,
): Promise<EngineProbe> {
  const path = findBinary(names);
  if (!path) return { ok: false, detail: `none of ${names.join(', ')} found on PATH` };
  try {
    const m = pattern.exec((await binaryOutput(path, versionArgs)).all);
    return { ok: true, path, version: m?.[1] ?? 'unknown' };
  } catch (e) {
    return { ok: false, path, detail: `could not run ${path}: ${(e as Error).message}` };
  }
}

export interface RunProcessOptions {
  /** Working folder; defaults to ctx.workDir. */
  cwd?: string;
  /**
   * Extra environment; the engine gets a minimal one (PATH, HOME and TMPDIR in its workDir, UTF-8
   * locale, and FONTCONFIG_FILE naming the project's font replacements).
   */
  env?: Record<string, string>;
  /** Called with each line the process writes to stderr or stdout (for progress parsing). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Text to write to stdin. */
  input?: string;
  /** Keep stdout as a Buffer (for binary output). */
  binaryStdout?: boolean;
  /**
   * OS limits for this engine (memory cap, CPU cap, no network); defaults suit most engines, see
   * src/run/sandbox.ts. Pass `{ addressSpaceBytes: null }` for an engine that reserves huge
   * virtual memory.
   */
  limits?: EngineLimits;
  /**
   * Files or folders outside the job folder the engine must read (a policy file shipped with
   * fileconv); with ctx.jobDir the engine sees nothing else of the disk but the system folders.
   */
  readable?: readonly string[];
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  stdoutBuffer?: Buffer;
}

const MAX_BUFFER = 64 * 1024 * 1024;

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // group already gone
  }
}

/**
 * Runs an engine process in its own process group with a minimal environment. On timeout or abort
 * the whole group is killed (so helpers like soffice.bin go too), and the group is swept after a
 * normal exit as well. A non-zero exit throws an EngineProcessError carrying stderr, for the
 * converter to classify.
 */
/** How much lower a background engine's CPU priority is than the server's (nice levels). */
const BACKGROUND_NICENESS = 10;

/**
 * A background engine's command under `nice`, outermost, so the sandbox's helpers and every
 * process the engine starts inherit the lower priority. Without `nice` the command runs as it is.
 */
function lowerPriority(command: { file: string; args: string[] }, ctx: StepContext) {
  const nice = ctx.background ? findBinary(['nice']) : undefined;
  if (!nice) return command;
  return { file: nice, args: ['-n', String(BACKGROUND_NICENESS), command.file, ...command.args] };
}

export async function runProcess(
  file: string,
  args: readonly string[],
  ctx: StepContext,
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  if (ctx.signal.aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: ctx.workDir,
    TMPDIR: ctx.workDir,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    OMP_THREAD_LIMIT: '1',
    ...fontconfigEnv(),
    ...options.env,
  };
  noteSandboxOnce(ctx);
  // Files the converter wrote for the engine (a profile, a copy of the input) become the engine user's.
  if (ctx.jobDir) await handToEngine([ctx.workDir], true);
  const access = ctx.jobDir ? { writable: [ctx.jobDir], readable: options.readable } : undefined;
  const command = lowerPriority(sandboxedCommand(file, args, ctx.timeoutMs, options.limits, access), ctx);
  const child = execa(command.file, command.args, {
    cwd: options.cwd ?? ctx.workDir,
    env,
    extendEnv: false,
    detached: true,
    reject: false,
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    input: options.input,
    encoding: options.binaryStdout ? 'buffer' : 'utf8',
    maxBuffer: MAX_BUFFER,
    stripFinalNewline: false,
  });
  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, ctx.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup(child.pid);
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (options.onLine) {
    const onLine = options.onLine;
    for (const stream of ['stdout', 'stderr'] as const) {
      if (stream === 'stdout' && options.binaryStdout) continue;
      let rest = '';
      child[stream]?.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split(/\r\n|\r|\n/);
        rest = lines.pop() ?? '';
        for (const line of lines) onLine(line, stream);
      });
    }
  }
  try {
    const r = await child;
    if (timedOut) {
      throw new FileconvError(
        'CONVERT_FAILED',
        `${basename(file)} took longer than ${Math.round(ctx.timeoutMs / 1000)} s and was stopped.`,
      );
    }
    if (aborted) throw new FileconvError('CONVERT_FAILED', 'The conversion was cancelled.');
    const stderr = typeof r.stderr === 'string' ? r.stderr : Buffer.from(r.stderr ?? []).toString('utf8');
    const stdoutBuffer = options.binaryStdout ? Buffer.from(r.stdout as unknown as Uint8Array) : undefined;
    const stdout = options.binaryStdout ? '' : String(r.stdout ?? '');
    if (r.exitCode !== 0 || r.signal) {
      if (wroteTooMuch(r.signal ?? undefined, r.exitCode, stderr, isConfined(command)))
        throw new FileconvError('OUTPUT_TOO_LARGE');
      throw new EngineProcessError(basename(file), r.exitCode, r.signal ?? undefined, stderr, stdout);
    }
    return { stdout, stderr, stdoutBuffer };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    killGroup(child.pid);
  }
}

/**
 * An engine past its file-size cap (RLIMIT_FSIZE) is killed by SIGXFSZ (a shell in between says
 * "File size limit exceeded" and exits 128+25); one that ignores the signal (Python does, so
 * calibre and the UNO bridge) sees its write fail with EFBIG, "File too large". bubblewrap, the
 * parent of a confined engine, passes a death by signal on as 128+signal, silently.
 */
function wroteTooMuch(
  signal: string | undefined,
  exitCode: number | undefined,
  stderr: string,
  confined: boolean,
): boolean {
  return (
    signal === 'SIGXFSZ' ||
    (exitCode === 153 && (confined || /File size limit exceeded/.test(stderr))) ||
    /\bFile too large\b/.test(stderr)
  );
}

/** Whether bubblewrap stands between this process and the engine (prlimit and unshare exec, bwrap forks). */
function isConfined(command: { file: string; args: readonly string[] }): boolean {
  return [command.file, ...command.args].some((a) => basename(a) === 'bwrap');
}

let sandboxNoted = false;

/** Says once per process, in the first conversion's timeline, which isolation is missing here. */
function noteSandboxOnce(ctx: StepContext): void {
  if (sandboxNoted) return;
  sandboxNoted = true;
  const notes = [...engineSandbox().notes, ...engineConfinement().notes];
  if (notes.length > 0) ctx.log(`engine isolation: ${describeConfinement()}; ${notes.join('; ')}`);
}

function basename(file: string): string {
  return file.split('/').pop() ?? file;
}

/** A process that exited badly; converters look at `output` to pick a detail code. */
export class EngineProcessError extends Error {
  constructor(
    readonly engine: string,
    readonly exitCode: number | undefined,
    readonly signalName: string | undefined,
    readonly stderr: string,
    readonly stdout: string,
  ) {
    super(`${engine} exited with ${signalName ?? `code ${exitCode}`}: ${lastLines(stderr || stdout, 3)}`);
    this.name = 'EngineProcessError';
  }

  /** stderr and stdout together, for pattern matching. */
  get output(): string {
    return `${this.stderr}\n${this.stdout}`;
  }
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ').slice(0, 500);
}

/**
 * Runs an engine on its input; a failure whose output matches `unreadable` (the engine's own words
 * for bytes it cannot read) is MALFORMED_DOCUMENT, any other stays the engine's failure.
 */
export async function runReadingInput(
  file: string,
  args: readonly string[],
  ctx: StepContext,
  unreadable: RegExp,
): Promise<ProcessResult> {
  try {
    return await runProcess(file, args, ctx);
  } catch (e) {
    if (e instanceof EngineProcessError && unreadable.test(e.output))
      throw new FileconvError('MALFORMED_DOCUMENT', undefined, { cause: e });
    throw e;
  }
}

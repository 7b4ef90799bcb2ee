import { spawnSync } from 'node:child_process';
import { findBinary } from './binary.js';
import { confineCommand, type EngineAccess } from './confine.js';

/**
 * Operating-system limits put around every engine process runProcess starts: an address-space
 * (memory) cap, a CPU-time cap and a file-size (output) cap through `prlimit`, and a fresh network
 * namespace with no interfaces through `unshare --net` (root only), so a hostile file cannot make
 * an engine fetch a URL or exhaust the machine's memory or disk. Both tools exec the engine in
 * place, so the engine keeps the pid and process group runProcess kills on timeout.
 */
export interface EngineLimits {
  /** Address-space cap per engine process in bytes; null for none (engines that reserve huge virtual memory). */
  addressSpaceBytes?: number | null;
  /** CPU-time cap in seconds; default twice the step's timeout (a backstop for escaped processes). */
  cpuSeconds?: number | null;
  /** Largest file the engine may write, in bytes (RLIMIT_FSIZE); default engineOutputLimit(). */
  fileSizeBytes?: number | null;
  /** Run the engine without network access where the OS allows it (default true). */
  isolateNetwork?: boolean;
}

/** Default address-space cap: ample for image, PDF and media engines, fatal to pixel floods. */
export const DEFAULT_ADDRESS_SPACE_BYTES = 2 * 1024 ** 3;

/**
 * Default cap on any one file an engine writes: room for legitimate large results (about 100
 * minutes of CD-quality WAV), fatal to inputs that expand without bound. A larger file fails with
 * OUTPUT_TOO_LARGE instead of filling the disk.
 */
export const DEFAULT_OUTPUT_BYTES = 1024 ** 3;

export const OUTPUT_LIMIT_ENV = 'FILECONV_ENGINE_OUTPUT_LIMIT';

/**
 * The largest file one engine may write, from FILECONV_ENGINE_OUTPUT_LIMIT (`1G`, `200M`, bytes;
 * `0`/`off` for none). Read on every call, without probing anything, so in-process engines and
 * worker threads check their own output against the same number.
 */
export function engineOutputLimit(): number | null {
  return parseSizeLimit(process.env[OUTPUT_LIMIT_ENV], OUTPUT_LIMIT_ENV, DEFAULT_OUTPUT_BYTES, []);
}

/**
 * Engines that reserve far more virtual address space than they use (LibreOffice's allocator and
 * Java bits, calibre's Qt WebEngine, Chromium): an address-space cap breaks them at start-up, so
 * they run with the CPU cap and network isolation only.
 */
const UNCAPPED_ADDRESS_SPACE = new Set([
  'soffice',
  'soffice.bin',
  'libreoffice',
  'ebook-convert',
  'chromium',
]);

export interface SandboxSupport {
  /** False when FILECONV_ENGINE_SANDBOX=off. */
  enabled: boolean;
  /** prlimit works here (memory and CPU caps applied). */
  limits: boolean;
  /** `unshare --net` works here (engines run with no network). */
  network: boolean;
  /** Address-space cap applied by default (FILECONV_ENGINE_MEMORY_LIMIT overrides; null: none). */
  defaultAddressSpaceBytes: number | null;
  /** File-size cap applied by default (FILECONV_ENGINE_OUTPUT_LIMIT overrides; null: none). */
  defaultFileSizeBytes: number | null;
  /** Why a part is not in effect, for doctor and the logs. */
  notes: string[];
  prlimitPath?: string;
  unsharePath?: string;
}

let cached: SandboxSupport | undefined;

/** What isolation is in effect; probed once per process (two tiny spawns), then cached. */
export function engineSandbox(): SandboxSupport {
  cached ??= probeSandbox();
  return cached;
}

/** Forget the probe (tests that change the environment). */
export function resetEngineSandbox(): void {
  cached = undefined;
}

function probeSandbox(): SandboxSupport {
  const notes: string[] = [];
  const setting = (process.env.FILECONV_ENGINE_SANDBOX ?? '').trim().toLowerCase();
  const defaultAddressSpaceBytes = parseSizeLimit(
    process.env.FILECONV_ENGINE_MEMORY_LIMIT,
    'FILECONV_ENGINE_MEMORY_LIMIT',
    DEFAULT_ADDRESS_SPACE_BYTES,
    notes,
  );
  const defaultFileSizeBytes = parseSizeLimit(
    process.env[OUTPUT_LIMIT_ENV],
    OUTPUT_LIMIT_ENV,
    DEFAULT_OUTPUT_BYTES,
    notes,
  );
  if (['off', '0', 'false', 'no'].includes(setting)) {
    return {
      enabled: false,
      limits: false,
      network: false,
      defaultAddressSpaceBytes,
      defaultFileSizeBytes,
      notes: ['disabled by FILECONV_ENGINE_SANDBOX=off'],
    };
  }
  const prlimitPath = findBinary(['prlimit']);
  const unsharePath = findBinary(['unshare']);
  const limits = prlimitPath !== undefined && works(prlimitPath, ['--core=0', '--cpu=5', '--', 'true']);
  if (!prlimitPath) notes.push('prlimit (util-linux) not found: no memory or CPU caps on engines');
  else if (!limits) notes.push('prlimit does not work here: no memory or CPU caps on engines');
  const network = unsharePath !== undefined && works(unsharePath, ['--net', '--', 'true']);
  if (!unsharePath) notes.push('unshare (util-linux) not found: engines keep network access');
  else if (!network) notes.push('unshare --net is not permitted (needs root): engines keep network access');
  return {
    enabled: true,
    limits,
    network,
    defaultAddressSpaceBytes,
    defaultFileSizeBytes,
    notes,
    prlimitPath,
    unsharePath,
  };
}

function works(file: string, args: string[]): boolean {
  const r = spawnSync(file, args, { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0;
}

/** `2G`, `512M`, `1073741824`; `0`/`off` for no cap. */
function parseSizeLimit(
  raw: string | undefined,
  name: string,
  fallback: number,
  notes: string[],
): number | null {
  if (raw === undefined || raw.trim() === '') return fallback;
  const text = raw.trim().toLowerCase();
  if (text === '0' || text === 'off') return null;
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)i?b?$/.exec(text);
  if (!m) {
    notes.push(`${name}=${raw} is not a size; using the default`);
    return fallback;
  }
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2] as '' | 'k' | 'm' | 'g'];
  return Math.floor(Number(m[1]) * unit);
}

function engineName(file: string): string {
  return file.split('/').pop() ?? file;
}

/**
 * The command to spawn for `file args` with the limits applied: `unshare --net -- bwrap ... --
 * setpriv ... -- prlimit ... -- file args` (confine.ts adds bwrap and setpriv; `access` names the
 * job folders the engine may see), or the bare command when nothing applies.
 */
export function sandboxedCommand(
  file: string,
  args: readonly string[],
  timeoutMs: number,
  limits: EngineLimits = {},
  access?: EngineAccess,
): { file: string; args: string[] } {
  const sandbox = engineSandbox();
  if (!sandbox.enabled) return { file, args: [...args] };
  let command = [file, ...args];
  if (sandbox.limits && sandbox.prlimitPath) {
    const addressSpace =
      limits.addressSpaceBytes !== undefined
        ? limits.addressSpaceBytes
        : UNCAPPED_ADDRESS_SPACE.has(engineName(file))
          ? null
          : sandbox.defaultAddressSpaceBytes;
    const cpu = limits.cpuSeconds !== undefined ? limits.cpuSeconds : Math.ceil((2 * timeoutMs) / 1000) + 10;
    const fileSize = limits.fileSizeBytes !== undefined ? limits.fileSizeBytes : sandbox.defaultFileSizeBytes;
    const caps = ['--core=0'];
    if (addressSpace !== null) caps.push(`--as=${addressSpace}`);
    if (cpu !== null) caps.push(`--cpu=${cpu}`);
    if (fileSize !== null) caps.push(`--fsize=${fileSize}`);
    command = [sandbox.prlimitPath, ...caps, '--', ...command];
  }
  command = confineCommand(command, access);
  if (sandbox.network && sandbox.unsharePath && limits.isolateNetwork !== false) {
    command = [sandbox.unsharePath, '--net', '--', ...command];
  }
  const [head, ...rest] = command;
  return { file: head ?? file, args: rest };
}

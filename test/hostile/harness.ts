import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { type ConversionEdge, type Converter, edgeOptionNames } from '../../src/engine/contract.js';
import type { EngineStatus } from '../../src/engine/registry.js';
import { type ErrorCode, isFileconvError } from '../../src/errors/index.js';
import type { FormatId } from '../../src/formats/index.js';
import { loadCatalog } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/types.js';
import { executePlan, runConversion } from '../../src/run/runner.js';

/**
 * The canaries every hostile case is checked against: secret files outside the job folder (their
 * access time is set far in the past, so any read by an engine moves it), and an HTTP listener on
 * loopback that counts the requests engines make to it.
 */
export interface Canary {
  /** A folder outside any job folder holding the secret files. */
  dir: string;
  /** The text in secret.txt; it must never appear in an output. */
  secret: string;
  /** Absolute paths of the secret files, by kind. */
  files: { txt: string; png: string; svg: string; xml: string };
  /** Base URL of the listener (`http://127.0.0.1:<port>/`). */
  url: string;
  hits(): number;
  close(): Promise<void>;
}

const OLD_ATIME = new Date(0);

export async function startCanary(): Promise<Canary> {
  const dir = mkdtempSync(join(tmpdir(), 'fileconv-canary-'));
  const secret = `CANARY-SECRET-${randomBytes(8).toString('hex')}`;
  const files = {
    txt: join(dir, 'secret.txt'),
    png: join(dir, 'secret.png'),
    svg: join(dir, 'secret.svg'),
    xml: join(dir, 'secret.xml'),
  };
  writeFileSync(files.txt, `${secret}\n`);
  writeFileSync(
    files.svg,
    `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><text>${secret}</text></svg>`,
  );
  writeFileSync(files.xml, `<secret>${secret}</secret>`);
  // A 1x1 PNG; its bytes do not matter, only whether anything opens it.
  writeFileSync(
    files.png,
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    ),
  );
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(secret);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const canary: Canary = {
    dir,
    secret,
    files,
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        rmSync(dir, { recursive: true, force: true });
      }),
  };
  armCanaryFiles(canary);
  return canary;
}

/** Sets the secret files' access time to 1970, so a later read shows as a newer atime. */
export function armCanaryFiles(canary: Canary): void {
  for (const f of Object.values(canary.files)) utimesSync(f, OLD_ATIME, new Date());
}

/** The secret files some process opened and read since they were armed. */
export function readCanaryFiles(canary: Canary): string[] {
  return Object.values(canary.files).filter((f) => statSync(f).atimeMs > 0);
}

/** What a case may end in: one of these FileconvError codes, or (when `output`) a safe output. */
export interface Allowed {
  codes?: ErrorCode[];
  output?: boolean;
}

export interface HostileCase {
  name: string;
  /** What the input attacks (kept next to the case, like a fixture's comment). */
  attack: string;
  from: FormatId;
  to: FormatId;
  /** Force this engine for the (single) step instead of the planner's choice. */
  engine?: string;
  make(canary: Canary): Buffer | string | Promise<Buffer | string>;
  allowed: Allowed;
  options?: unknown;
  /** Shorter engine time limit for cases that would hang. */
  timeoutMs?: number;
  /**
   * A weakness this case found that is not fixed yet (docs/security.md, known gaps): the named
   * check is skipped for this case only; every other check still runs.
   */
  knownGap?: { check: 'secret-read' | 'temp-left'; reason: string };
}

/**
 * A maker of cases that share a name prefix and settings (allowed ends, a forced engine): each
 * case then gives only its name, attack, pair and input.
 */
export function caseGroup(
  prefix: string,
  shared: Pick<HostileCase, 'allowed'> & Partial<Pick<HostileCase, 'engine' | 'timeoutMs'>>,
): (name: string, attack: string, from: FormatId, to: FormatId, make: HostileCase['make']) => HostileCase {
  return (name, attack, from, to, make) => ({
    ...shared,
    name: `${prefix}: ${name}`,
    attack,
    from,
    to,
    make,
  });
}

export interface CaseOutcome {
  code?: ErrorCode;
  message?: string;
  outputs: string[];
}

/** The engines of the catalog, with per-case time limits applied when asked. */
async function enginesFor(c: HostileCase): Promise<readonly (EngineStatus | Converter)[]> {
  const { engines } = await loadCatalog();
  if (!c.timeoutMs) return engines;
  return engines.map((e) => ({ ...e, converter: { ...e.converter, timeoutMs: c.timeoutMs } }));
}

function forcedPlan(engines: readonly (EngineStatus | Converter)[], c: HostileCase): Plan {
  const status = engines.find((e) => 'converter' in e && e.converter.name === c.engine) as
    | EngineStatus
    | undefined;
  const edge: ConversionEdge | undefined = status?.converter.edges.find(
    (e) => e.from === c.from && e.to === c.to,
  );
  if (!status?.probe.ok || !edge) throw new Error(`${c.engine} does not offer ${c.from} to ${c.to} here`);
  const options = edgeOptionNames(status.converter, edge);
  return {
    key: `${c.from}-${c.to}`,
    from: c.from,
    to: c.to,
    family: edge.family,
    lossy: edge.lossy,
    cost: edge.cost,
    steps: [{ from: c.from, to: c.to, engines: [status.converter.name], edge, edges: [edge], options }],
    options,
  };
}

/** Runs a case through the real conversion path; returns its error code or its outputs. */
export async function runCase(c: HostileCase, canary: Canary, root: string): Promise<CaseOutcome> {
  const caseDir = mkdtempSync(join(root, 'case-'));
  const input = join(caseDir, `hostile.${c.from}`);
  writeFileSync(input, await c.make(canary));
  const outDir = join(caseDir, 'out');
  const tempRoot = join(caseDir, 'temp');
  mkdirSync(tempRoot);
  const engines = await enginesFor(c);
  const job = { input, outDir, options: c.options };
  try {
    const result = c.engine
      ? await executePlan(forcedPlan(engines, c), job, { engines, tempRoot })
      : await runConversion({ ...job, from: c.from, to: c.to }, { engines, tempRoot });
    return { outputs: result.files.map((f) => f.path) };
  } catch (e) {
    if (!isFileconvError(e)) throw e;
    return { code: e.code, message: e.message, outputs: [] };
  } finally {
    // Everything the run made lives under tempRoot; it must be empty and no process may still use it.
    const left = readdirSync(tempRoot);
    const survivors = processesMentioning(tempRoot);
    if (left.length > 0 || survivors.length > 0) {
      lastLeaks = { left, survivors };
    } else {
      lastLeaks = undefined;
    }
  }
}

let lastLeaks: { left: string[]; survivors: string[] } | undefined;

/** Temp entries and processes the last case left behind (undefined when none). */
export function leaksOfLastCase(): { left: string[]; survivors: string[] } | undefined {
  return lastLeaks;
}

/** Command lines of processes naming `path` (pgrep -f), other than this test process. */
export function processesMentioning(path: string): string[] {
  try {
    const out = execFileSync('pgrep', ['-a', '-f', path], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter(Boolean)
      .filter((line) => !line.startsWith(`${process.pid} `));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** True when `secret` is in the file's bytes, in any zlib stream inside it (PDF, PNG), or as UTF-16. */
export function fileLeaksSecret(path: string, secret: string): boolean {
  const bytes = readFileSync(path);
  if (bytes.includes(secret) || bytes.includes(Buffer.from(secret, 'utf16le'))) return true;
  if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
    // OOXML and ODF outputs: look inside every member.
    const members = execFileSync('unzip', ['-p', path], { maxBuffer: 512 * 1024 * 1024 });
    if (members.includes(secret)) return true;
  }
  for (let i = bytes.indexOf(0x78); i >= 0 && i < bytes.length - 2; i = bytes.indexOf(0x78, i + 1)) {
    const flags = bytes[i + 1] ?? 0;
    if ((0x78 * 256 + flags) % 31 !== 0) continue;
    try {
      if (inflateSync(bytes.subarray(i)).includes(secret)) return true;
    } catch {
      // not a zlib stream (or a truncated one)
    }
  }
  return false;
}

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeOfficePool,
  configureOfficePool,
  convertWithPool,
  officePoolAvailable,
  officePoolStatus,
} from '../../converters/libreoffice/pool.js';
import { FileconvError } from '../../src/errors/index.js';
import { makeDocx } from './inputs.js';
import { leftoverOfficeProcessesSettled } from './leftovers.js';

let dir: string;
let docx: string;
const seenDirs = new Set<string>();
let outputs = 0;

function instance() {
  const first = officePoolStatus().instances[0];
  if (first?.dir) seenDirs.add(first.dir);
  return first;
}

async function convertOnce(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<string> {
  const pdf = join(dir, `out${outputs++}.pdf`);
  await convertWithPool({
    input: docx,
    output: pdf,
    inputFilter: 'MS Word 2007 XML',
    filter: 'writer_pdf_Export',
    timeoutMs: options.timeoutMs ?? 60_000,
    signal: options.signal ?? new AbortController().signal,
  });
  instance();
  return pdf;
}

const isPdf = (path: string) => readFileSync(path).subarray(0, 5).toString('latin1') === '%PDF-';

async function rejection(promise: Promise<unknown>): Promise<FileconvError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  return error as FileconvError;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fileconv-pool-life-'));
  docx = makeDocx(dir, 1);
});

afterEach(async () => {
  instance();
  await closeOfficePool();
  expect(await leftoverOfficeProcessesSettled([...seenDirs])).toEqual([]);
});

afterAll(async () => {
  await configureOfficePool({});
  delete process.env.FILECONV_UNO_PYTHON;
  rmSync(dir, { recursive: true, force: true });
});

describe('office pool lifecycle', () => {
  it('replaces an instance after N conversions', async () => {
    await configureOfficePool({ size: 1, maxConversions: 3 });
    const pids: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      expect(isPdf(await convertOnce())).toBe(true);
      pids.push(instance()?.pid);
    }
    const [first] = pids;
    expect(first).toBeGreaterThan(0);
    // the third conversion retires the instance; the fourth runs on a fresh one
    expect(pids[1]).toBe(first);
    expect(pids[2]).toBeUndefined();
    expect(pids[3]).toBeGreaterThan(0);
    expect(pids[3]).not.toBe(first);
    expect(officePoolStatus().restarts['conversion limit']).toBe(1);
  });

  it('kills the whole process group on timeout and carries on with a fresh instance', async () => {
    await configureOfficePool({ size: 1 });
    await convertOnce();
    const before = instance();
    expect(before?.pid).toBeGreaterThan(0);
    const error = await rejection(convertOnce({ timeoutMs: 1 }));
    expect(error.code).toBe('CONVERT_FAILED');
    expect(error.message).toMatch(/took longer/);
    expect(await leftoverOfficeProcessesSettled([before?.dir ?? 'missing'])).toEqual([]);
    expect(isPdf(await convertOnce())).toBe(true);
    const after = instance();
    expect(after?.pid).toBeGreaterThan(0);
    expect(after?.pid).not.toBe(before?.pid);
    expect(officePoolStatus().restarts.timeout).toBe(1);
  });

  it('replaces a crashed instance (soffice.bin killed with SIGKILL)', async () => {
    await configureOfficePool({ size: 1 });
    await convertOnce();
    const before = instance();
    process.kill(before?.pid ?? 0, 'SIGKILL');
    expect(isPdf(await convertOnce())).toBe(true);
    const after = instance();
    expect(after?.pid).not.toBe(before?.pid);
    expect(officePoolStatus().restarts.crashed).toBe(1);
  });

  it('queues requests for a free instance, and a queued request honours its AbortSignal', async () => {
    await configureOfficePool({ size: 1 });
    expect((await officePoolAvailable()).ok).toBe(true);
    const controller = new AbortController();
    const running = convertOnce();
    const queued = convertOnce({ signal: controller.signal });
    const alsoQueued = convertOnce();
    // let both reach the queue behind the running conversion, then give up on one of them
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(officePoolStatus().instances[0]?.busy).toBe(true);
    controller.abort();
    const error = await rejection(queued);
    expect(error.message).toMatch(/cancelled/);
    expect(isPdf(await running)).toBe(true);
    expect(isPdf(await alsoQueued)).toBe(true);
  });

  it('reports the pool unavailable when the python cannot be found, and why', async () => {
    await configureOfficePool({ python: join(dir, 'no-such-python') });
    const result = await officePoolAvailable();
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/uno/);
    expect(result.reason).toMatch(/no-such-python not found/);
    expect(officePoolStatus()).toMatchObject({ available: false, reason: result.reason });
    const error = await rejection(convertOnce());
    expect(error.code).toBe('CONVERT_FAILED');
    expect(error.message).toMatch(/pool unavailable/);
  });

  it('reads the python from FILECONV_UNO_PYTHON', async () => {
    await configureOfficePool({});
    process.env.FILECONV_UNO_PYTHON = '/bin/false';
    try {
      const result = await officePoolAvailable();
      expect(result.ok).toBe(false);
      expect(result.reason).toMatch(/\/bin\/false/);
    } finally {
      delete process.env.FILECONV_UNO_PYTHON;
    }
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOfficePool } from '../../converters/libreoffice/pool.js';
import { resetEngineSandbox } from '../../src/run/sandbox.js';
import { dataCases } from './cases-data.js';
import { disguisedCases } from './cases-disguised.js';
import { documentCases } from './cases-documents.js';
import { fieldCases } from './cases-fields.js';
import { imageCases } from './cases-images.js';
import { HOSTILE_OUTPUT_LIMIT, inflationCases } from './cases-inflation.js';
import { mediaCases } from './cases-media.js';
import { officeCases } from './cases-office.js';
import { pageCases } from './cases-pages.js';
import { reportCases, signingCases } from './cases-signing.js';
import { webCases } from './cases-web.js';
import {
  armCanaryFiles,
  type Canary,
  fileLeaksSecret,
  leaksOfLastCase,
  processesMentioning,
  readCanaryFiles,
  runCase,
  startCanary,
} from './harness.js';

/**
 * Hostile inputs through the real conversion path (catalog plans, runner, engines). Each case must
 * end in an allowed FileconvError code or a safe output, and leave no trace: no secret file read,
 * no request to the canary listener, no file written next to the secrets, no process or temp file
 * left behind.
 */
const cases = [
  ...imageCases,
  ...mediaCases,
  ...officeCases,
  ...documentCases,
  ...pageCases,
  ...signingCases,
  ...reportCases,
  ...dataCases,
  ...inflationCases,
  ...webCases,
  ...disguisedCases,
  ...fieldCases,
];
const CANARY_FILES = ['secret.png', 'secret.svg', 'secret.txt', 'secret.xml'];

let canary: Canary;
let privateTmp: string;
let root: string;
let savedTmpdir: string | undefined;
let passed = 0;

beforeAll(async () => {
  // A temp folder of this file's own, so "no temp files left" is not confused by other test runs.
  savedTmpdir = process.env.TMPDIR;
  privateTmp = mkdtempSync(join(tmpdir(), 'fileconv-hostile-tmp-'));
  process.env.TMPDIR = privateTmp;
  process.env.FILECONV_ENGINE_OUTPUT_LIMIT = HOSTILE_OUTPUT_LIMIT;
  resetEngineSandbox();
  canary = await startCanary();
  root = join(privateTmp, 'cases');
  mkdirSync(root);
});

afterAll(async () => {
  await closeOfficePool();
  await canary?.close();
  process.env.TMPDIR = savedTmpdir;
  delete process.env.FILECONV_ENGINE_OUTPUT_LIMIT;
  resetEngineSandbox();
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  rmSync(privateTmp, { recursive: true, force: true });
  console.log(`hostile inputs: ${cases.length}, passed: ${passed}`);
});

/** Temp entries other than the harness's own folders and the warm office pool's. */
// Kept by design: the canary, the warm office pool's folders and the fontconfig file every engine
// reads (written once per process, src/fonts/fontconfig.ts).
const KEPT_TEMP = ['fileconv-canary-', 'fileconv-office-', 'fileconv-fonts-'];

function strayTempEntries(): string[] {
  return readdirSync(privateTmp).filter((e) => e !== 'cases' && !KEPT_TEMP.some((p) => e.startsWith(p)));
}

describe('hostile inputs', () => {
  it('has at least 100 cases with distinct names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it('the canaries can fail: a read moves the access time, a request is counted', async () => {
    armCanaryFiles(canary);
    expect(readCanaryFiles(canary)).toEqual([]);
    readFileSync(canary.files.txt);
    expect(readCanaryFiles(canary)).toEqual([canary.files.txt]);
    const before = canary.hits();
    expect(await (await fetch(`${canary.url}probe`)).text()).toBe(canary.secret);
    expect(canary.hits()).toBe(before + 1);
    armCanaryFiles(canary);
  });

  for (const c of cases) {
    it(c.name, { timeout: 240_000 }, async () => {
      armCanaryFiles(canary);
      const hitsBefore = canary.hits();
      const strayBefore = strayTempEntries();
      const outcome = await runCase(c, canary, root);

      const ended = outcome.code ?? 'output';
      const allowed = [...(c.allowed.codes ?? []), ...(c.allowed.output ? ['output'] : [])];
      expect(allowed, `${c.attack}: ended in ${ended} (${outcome.message ?? ''})`).toContain(ended);
      for (const out of outcome.outputs) {
        expect(fileLeaksSecret(out, canary.secret), `${out} holds the secret`).toBe(false);
      }
      expect(canary.hits(), 'requests to the canary listener').toBe(hitsBefore);
      if (c.knownGap?.check !== 'secret-read') {
        expect(readCanaryFiles(canary), 'secret files read').toEqual([]);
      }
      expect(readdirSync(canary.dir).sort(), 'files written next to the secrets').toEqual(CANARY_FILES);
      expect(leaksOfLastCase(), 'temp entries or processes left in the job folder').toBeUndefined();
      expect(processesMentioning(root), 'processes naming the case folder').toEqual([]);
      if (c.knownGap?.check === 'temp-left') {
        for (const e of strayTempEntries())
          if (!strayBefore.includes(e)) rmSync(join(privateTmp, e), { recursive: true, force: true });
      } else {
        expect(strayTempEntries(), 'temp entries left').toEqual(strayBefore);
      }
      for (const e of readdirSync(root)) rmSync(join(root, e), { recursive: true, force: true });
      passed++;
    });
  }
});

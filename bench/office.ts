/**
 * Office to PDF, 20 files one after another (7 docx, 7 xlsx, 6 pptx made here): through the warm
 * LibreOffice pool versus a cold `soffice --headless --convert-to pdf` per file with a fresh
 * profile, in the same run. The pool's time includes starting its instances.
 *
 *   tsx bench/office.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { closeOfficePool, convertWithPool, officePoolAvailable } from '../converters/libreoffice/pool.js';
import { createLockedProfile } from '../converters/office/profile.js';
import { findBinary } from '../src/run/binary.js';
import { makeDocx, makePptx, makeXlsx } from '../test/office-pool/inputs.js';

const FILTERS = {
  docx: { input: 'MS Word 2007 XML', output: 'writer_pdf_Export' },
  xlsx: { input: 'Calc MS Excel 2007 XML', output: 'calc_pdf_Export' },
  pptx: { input: 'Impress MS PowerPoint 2007 XML', output: 'impress_pdf_Export' },
} as const;

type Kind = keyof typeof FILTERS;

function assertPdf(path: string): void {
  if (readFileSync(path).subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new Error(`${path} is not a PDF`);
}

async function makeInputs(dir: string): Promise<{ path: string; kind: Kind }[]> {
  const inputs: { path: string; kind: Kind }[] = [];
  for (let n = 0; n < 7; n++) inputs.push({ path: makeDocx(dir, n), kind: 'docx' });
  for (let n = 0; n < 7; n++) inputs.push({ path: await makeXlsx(dir, n), kind: 'xlsx' });
  for (let n = 0; n < 6; n++) inputs.push({ path: makePptx(dir, n), kind: 'pptx' });
  return inputs;
}

async function viaPool(inputs: { path: string; kind: Kind }[], outDir: string): Promise<number> {
  const start = performance.now();
  const available = await officePoolAvailable();
  if (!available.ok) throw new Error(`office pool unavailable: ${available.reason}`);
  for (const { path, kind } of inputs) {
    const output = join(outDir, `${basename(path)}.pdf`);
    await convertWithPool({
      input: path,
      output,
      inputFilter: FILTERS[kind].input,
      filter: FILTERS[kind].output,
      timeoutMs: 120_000,
      signal: new AbortController().signal,
    });
    assertPdf(output);
  }
  return (performance.now() - start) / 1000;
}

async function viaColdSoffice(inputs: { path: string; kind: Kind }[], outDir: string, scratch: string) {
  const soffice = findBinary(['soffice', 'libreoffice']);
  if (!soffice) throw new Error('soffice not found');
  const start = performance.now();
  for (const [i, { path }] of inputs.entries()) {
    const profile = await createLockedProfile(join(scratch, `profile-${i}`));
    execFileSync(
      soffice,
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=${profile}`,
        '--convert-to',
        'pdf',
        '--outdir',
        outDir,
        path,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
    assertPdf(join(outDir, basename(path).replace(/\.\w+$/, '.pdf')));
  }
  return (performance.now() - start) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'fileconv-bench-office-'));
try {
  const inputs = await makeInputs(dir);
  // makeXlsx used the pool: stop it so the measured run starts cold like the baseline.
  await closeOfficePool();
  for (const sub of ['pool', 'cold', 'scratch']) mkdirSync(join(dir, sub));
  const ours = await viaPool(inputs, join(dir, 'pool'));
  await closeOfficePool();
  const baseline = await viaColdSoffice(inputs, join(dir, 'cold'), join(dir, 'scratch'));
  console.log(`files: ${inputs.length} (7 docx, 7 xlsx, 6 pptx) to pdf, one after another`);
  console.log(`pool (including instance start): ${ours.toFixed(2)} s`);
  console.log(`cold soffice per file:           ${baseline.toFixed(2)} s`);
  console.log(`office: ${(ours / baseline).toFixed(3)} (ours / baseline)`);
} finally {
  await closeOfficePool();
  rmSync(dir, { recursive: true, force: true });
}

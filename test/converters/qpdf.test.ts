import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import converter from '../../converters/qpdf.js';
import { runConversion } from '../../src/run/runner.js';
import type { RunEvent } from '../../src/run/types.js';
import { expectCode, runStep, tempDir } from '../helpers/step.js';
import { encryptedPdf, textPdf } from './_image-samples.js';

const PAGES = ['Alpha page one', 'Bravo page two', 'Charlie page three', 'Delta page four', 'Echo page five'];

/** qpdf's own exit code for a check: 0 yes, 2 no (it never writes a file here). */
function qpdfExit(...args: string[]): number | null {
  return spawnSync('qpdf', args).status;
}

function pdfinfo(path: string, ...args: string[]): string {
  return execFileSync('pdfinfo', [...args, path], { encoding: 'utf8' });
}

function pageCount(path: string, password?: string): number {
  const info = pdfinfo(path, ...(password ? ['-upw', password] : []));
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

function text(path: string, password?: string): string {
  return execFileSync('pdftotext', [...(password ? ['-upw', password] : []), path, '-'], {
    encoding: 'utf8',
  });
}

function checkClean(path: string, password?: string): void {
  // qpdf --check exits 0 on a sound file (3 would be warnings, 2 errors).
  const r = spawnSync('qpdf', [...(password ? [`--password=${password}`] : []), '--check', path]);
  expect(r.status).toBe(0);
}

describe('qpdf converter', () => {
  it('probes qpdf', async () => {
    const probe = await converter.probe();
    expect(probe.ok).toBe(true);
    expect(probe.version).toMatch(/^\d+\.\d+/);
  });

  it('keeps the pages asked for, in order, and only what they use', async () => {
    const pdf = await textPdf(tempDir(), PAGES);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { pages: '2,4-5' });
    expect(files).toHaveLength(1);
    checkClean(files[0]!);
    expect(pageCount(files[0]!)).toBe(3);
    expect(text(files[0]!)).toMatch(/Bravo page two[\s\S]*Delta page four[\s\S]*Echo page five/);
    expect(text(files[0]!)).not.toContain('Alpha');
  });

  it('splits into parts of N pages, named in page order', async () => {
    const pdf = await textPdf(tempDir(), PAGES);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { split: 2 });
    expect(files.map((f) => pageCount(f))).toEqual([2, 2, 1]);
    expect(text(files[0]!)).toContain('Alpha');
    expect(text(files[1]!)).toContain('Charlie');
    expect(text(files[2]!)).toContain('Echo');
    for (const f of files) checkClean(f);
  });

  it('rotates every page clockwise', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 2));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { rotate: 90 });
    const info = pdfinfo(files[0]!, '-f', '1', '-l', '2');
    expect(info.match(/rot:\s+90/g)).toHaveLength(2);
  });

  it('protects with AES-256: the user password opens it, without it nothing does', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 2));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, {
      user_password: 'open sesame',
      owner_password: 'the owner',
      allow_print: false,
    });
    const out = files[0]!;
    expect(qpdfExit('--requires-password', out)).toBe(0);
    expect(qpdfExit('--password=open sesame', '--requires-password', out)).toBe(3);
    const shown = execFileSync('qpdf', ['--password=open sesame', '--show-encryption', out], {
      encoding: 'utf8',
    });
    expect(shown).toMatch(/R = 6/);
    expect(shown).toMatch(/AESv3/);
    expect(shown).toMatch(/print low resolution: not allowed/);
    expect(text(out, 'open sesame')).toContain('Alpha page one');
    checkClean(out, 'open sesame');
    // No password on any command line: the arguments went through a file.
    expect(readFileSync(out).includes(Buffer.from('open sesame'))).toBe(false);
  });

  it('unlocks a protected PDF with its password, and refuses a missing or wrong one', async () => {
    const dir = tempDir();
    const locked = await encryptedPdf(await textPdf(dir, PAGES.slice(0, 2)), join(dir, 'locked.pdf'));
    expect(qpdfExit('--is-encrypted', locked)).toBe(0);
    const { files } = await runStep(converter, 'pdf', 'pdf', locked, { password: 'secret' });
    expect(qpdfExit('--is-encrypted', files[0]!)).toBe(2);
    expect(text(files[0]!)).toContain('Bravo page two');
    await expectCode(runStep(converter, 'pdf', 'pdf', locked), 'ENCRYPTED_DOCUMENT');
    await expectCode(runStep(converter, 'pdf', 'pdf', locked, { password: 'wrong' }), 'ENCRYPTED_DOCUMENT');
  });

  it('linearises for fast web view, and flattens', async () => {
    const pdf = await textPdf(tempDir(), PAGES.slice(0, 3));
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { linearize: true, flatten: true });
    expect(qpdfExit('--check-linearization', files[0]!)).toBe(0);
    expect(pageCount(files[0]!)).toBe(3);
  });

  it('compresses losslessly, and never returns a larger file', async () => {
    const pdf = await textPdf(tempDir(), PAGES);
    const { files } = await runStep(converter, 'pdf', 'pdf', pdf, { compress: 'lossless' });
    expect(statSync(files[0]!).size).toBeLessThanOrEqual(statSync(pdf).size);
    expect(text(files[0]!)).toMatch(/Alpha[\s\S]*Echo/);
    checkClean(files[0]!);
  });

  it('opens a protected PDF first for any conversion given its password', async () => {
    const dir = tempDir();
    const locked = await encryptedPdf(await textPdf(dir, PAGES.slice(0, 2)), join(dir, 'locked.pdf'));
    const events: RunEvent[] = [];
    const result = await runConversion({
      input: locked,
      from: 'pdf',
      to: 'txt',
      outDir: join(dir, 'out'),
      options: { password: 'secret' },
      onEvent: (e) => events.push(e),
    });
    expect(readFileSync(result.files[0]!.path, 'utf8')).toContain('Bravo page two');
    expect(events.find((e) => e.kind === 'plan')?.message).toMatch(/pdf -\(qpdf\)-> pdf -\(\w+\)-> txt/);
    expect(events.filter((e) => e.kind === 'options').map((e) => e.message)[0]).toBe(
      'step 1 (qpdf, pdf to pdf) takes password',
    );
    // The password is a value, never a line of the timeline.
    expect(JSON.stringify(events)).not.toContain('secret');
  });
});

import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/index.js';
import { type LockedFormat, makeLockedOffice, unoPython } from '../helpers/locked-office.js';
import { fixture } from './helpers.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'fileconv');
const dir = mkdtempSync(join(tmpdir(), 'fileconv-detect-locked-'));
let locked: Record<LockedFormat, string>;

beforeAll(() => {
  if (unoPython) locked = makeLockedOffice(dir, 'detect-secret');
}, 200_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function copyAs(path: string, name: string): string {
  const to = join(dir, name);
  copyFileSync(path, to);
  return to;
}

describe.skipIf(!unoPython)('password-protected office documents (skipped: no python3-uno)', () => {
  it('names each as its format with encrypted: true, never bin', async () => {
    for (const [format, path] of Object.entries(locked)) {
      const report = await detect(path);
      expect(report, format).toMatchObject({
        declared: format,
        detected: format,
        match: true,
        encrypted: true,
      });
      expect(report.confidence, format).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('takes an encrypted DOCX, XLSX or PPTX package as the declared one of the three', async () => {
    // The package's kind is inside its encryption: the name decides, and any of the three matches.
    const asSheet = await detect(copyAs(locked.docx, 'renamed.xlsx'));
    expect(asSheet).toMatchObject({ detected: 'xlsx', match: true, encrypted: true, confidence: 0.9 });
    const asDeck = await detect(locked.xlsx, { declared: 'pptx' });
    expect(asDeck).toMatchObject({ detected: 'pptx', match: true, encrypted: true });
  });

  it('reports an encrypted package with no telling name as docx, less sure, and one named pdf as a mismatch', async () => {
    const nameless = await detect(copyAs(locked.xlsx, 'upload'));
    expect(nameless).toMatchObject({ declared: 'docx', detected: 'docx', encrypted: true });
    expect(nameless.confidence).toBeLessThan(0.5);
    const disguised = await detect(copyAs(locked.pptx, 'report.pdf'));
    expect(disguised).toMatchObject({ declared: 'pdf', detected: 'docx', match: false, encrypted: true });
  });

  it('leaves encrypted out of the report of the same documents without a password', async () => {
    const plain = await detect(fixture('document.docx'));
    expect(plain.encrypted).toBeUndefined();
    expect('encrypted' in plain).toBe(false);
  });

  it('prints encrypted in fileconv detect --json and marks it in the table', async () => {
    const run = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [BIN, 'detect', ...args], (e, stdout) =>
          e ? reject(e) : resolve(stdout),
        ),
      );
    const json = (await run('--json', locked.xls, locked.odt))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json).toEqual([
      expect.objectContaining({ detected: 'xls', encrypted: true }),
      expect.objectContaining({ detected: 'odt', encrypted: true }),
    ]);
    expect(await run(locked.pptx)).toMatch(/pptx \(encrypted OOXML\)/);
  });
});

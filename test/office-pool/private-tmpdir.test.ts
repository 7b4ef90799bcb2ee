import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeOfficePool, officePoolAvailable, officePoolStatus } from '../../converters/libreoffice/pool.js';
import { engineConfinement, engineReachableTmpdir } from '../../src/run/confine.js';
import { resetEngineSandbox } from '../../src/run/sandbox.js';
import { docxToPdf, makeDocx } from './inputs.js';

// A TMPDIR only the server's user may enter (`mktemp -d` makes it 0700), in this file's process.
const outer = tmpdir();
const privateTmp = mkdtempSync(join(outer, 'fileconv-private-tmp-'));
process.env.TMPDIR = privateTmp;
resetEngineSandbox();
const engineUser = engineConfinement().user;

afterAll(async () => {
  await closeOfficePool();
  rmSync(privateTmp, { recursive: true, force: true });
});

describe.skipIf(!engineUser)('a TMPDIR private to the server (engines run as their own user)', () => {
  it('starts the office pool in a temp folder the engine user can reach, and converts', async () => {
    expect(statSync(privateTmp).mode & 0o777).toBe(0o700);
    expect(engineReachableTmpdir()).toBe('/tmp');
    expect(await officePoolAvailable()).toEqual({ ok: true });
    expect(dirname(officePoolStatus().instances[0]?.dir ?? '')).toBe('/tmp');

    const docx = makeDocx(privateTmp, 3);
    const pdf = join(privateTmp, 'out.pdf');
    await docxToPdf(docx, pdf);
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
  }, 120_000);
});

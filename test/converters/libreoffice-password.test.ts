import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import { LOCKED_TEXT, type LockedFormat, makeLockedOffice, unoPython } from '../helpers/locked-office.js';
import { convertWith, expectCode, pdfText } from '../helpers/office.js';

const PASSWORD = 'office-secret-1';
const dir = mkdtempSync(join(tmpdir(), 'fileconv-lo-locked-'));
let locked: Record<LockedFormat, string>;

beforeAll(() => {
  if (unoPython) locked = makeLockedOffice(dir, PASSWORD);
}, 200_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODULE: Record<LockedFormat, keyof typeof LOCKED_TEXT> = {
  docx: 'writer',
  doc: 'writer',
  odt: 'writer',
  xlsx: 'calc',
  xls: 'calc',
  ods: 'calc',
  pptx: 'impress',
  odp: 'impress',
};

describe.skipIf(!unoPython)('password-protected office documents (skipped: no python3-uno)', () => {
  it('opens DOCX, XLSX, PPTX, DOC, XLS and ODF with the password, on the way to PDF', {
    timeout: 240_000,
  }, async () => {
    for (const [format, path] of Object.entries(locked) as [LockedFormat, string][]) {
      const { files, leftover } = await convertWith(libreoffice, format, 'pdf', path, { password: PASSWORD });
      expect(leftover).toEqual([]);
      expect(pdfText(files[0] as string).replace(/\s+/g, ' '), format).toContain(LOCKED_TEXT[MODULE[format]]);
    }
  });

  it('saves a protected document without its password (docx-docx, xls-xls)', {
    timeout: 120_000,
  }, async () => {
    for (const format of ['docx', 'xls'] as const) {
      const { files } = await convertWith(libreoffice, format, format, locked[format], {
        password: PASSWORD,
      });
      // msoffcrypto-tool is not needed to tell: `file` names an OOXML zip and a plain OLE2 document.
      const kind = execFileSync('file', ['-b', files[0] as string], { encoding: 'utf8' });
      expect(kind).toMatch(format === 'docx' ? /Microsoft Word 2007\+/ : /Composite Document File/);
      const again = await convertWith(libreoffice, format, 'pdf', files[0] as string);
      expect(pdfText(again.files[0] as string)).toContain(LOCKED_TEXT[MODULE[format]]);
    }
  });

  it('answers ENCRYPTED_DOCUMENT without a password and with a wrong one', { timeout: 120_000 }, async () => {
    for (const format of ['docx', 'xls', 'odt'] as const) {
      await expectCode(convertWith(libreoffice, format, 'pdf', locked[format]), 'ENCRYPTED_DOCUMENT');
      await expectCode(
        convertWith(libreoffice, format, 'pdf', locked[format], { password: 'not-it' }),
        'ENCRYPTED_DOCUMENT',
      );
    }
  });
});

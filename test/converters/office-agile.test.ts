import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import officeCrypto from 'officecrypto-tool';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import libreoffice from '../../converters/libreoffice.js';
import { detect } from '../../src/index.js';
import { fixture } from '../detect/helpers.js';
import { msoffcryptoPython, unoPython } from '../helpers/locked-office.js';
import { convertWith, expectCode, pdfText } from '../helpers/office.js';

/**
 * DOCX, XLSX and PPTX with ECMA-376 Agile encryption (AES-256, SHA-512), what Word, Excel and
 * PowerPoint write when a document is saved with a password. LibreOffice writes only Standard
 * encryption (test/helpers/locked-office.ts), so these are encrypted by officecrypto-tool, and
 * Debian's msoffcrypto-tool, another implementation, confirms each is Agile and opens with the
 * password before fileconv is asked.
 */

const PASSWORD = 'agile-secret-7';
const dir = mkdtempSync(join(tmpdir(), 'fileconv-agile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SOURCES = { docx: 'document.docx', xlsx: 'sheet.xlsx', pptx: 'slides.pptx' } as const;
type Format = keyof typeof SOURCES;
const locked = {} as Record<Format, string>;

/** The encryption type msoffcrypto-tool reads, and whether the password decrypts to a ZIP. */
function inspect(path: string): { type: string; opens: boolean } {
  const script =
    'import io, os, sys, msoffcrypto\n' +
    'f = msoffcrypto.OfficeFile(open(sys.argv[1], "rb"))\n' +
    'f.load_key(password=os.environ["OFFICE_PASSWORD"])\n' +
    'out = io.BytesIO(); f.decrypt(out)\n' +
    'print(f.type, out.getvalue()[:2] == b"PK")\n';
  const [type = '', opens] = execFileSync(msoffcryptoPython!, ['-c', script, path], {
    encoding: 'utf8',
    env: { ...process.env, OFFICE_PASSWORD: PASSWORD },
  })
    .trim()
    .split(' ');
  return { type, opens: opens === 'True' };
}

/** The words of the unencrypted source as LibreOffice prints them, to compare with. */
const plainText: Partial<Record<Format, string>> = {};

beforeAll(async () => {
  for (const [format, name] of Object.entries(SOURCES) as [Format, string][]) {
    locked[format] = join(dir, `agile.${format}`);
    writeFileSync(locked[format], officeCrypto.encrypt(readFileSync(fixture(name)), { password: PASSWORD }));
  }
}, 60_000);

describe.skipIf(!unoPython || !msoffcryptoPython)(
  'Agile-encrypted DOCX, XLSX and PPTX (skipped: no python3-uno or python3-msoffcrypto-tool)',
  () => {
    it('are Agile-encrypted packages that the password opens, by another implementation', () => {
      for (const format of Object.keys(SOURCES) as Format[]) {
        expect(inspect(locked[format]), format).toEqual({ type: 'agile', opens: true });
      }
    });

    it('are detected as their format with encrypted: true', async () => {
      for (const format of Object.keys(SOURCES) as Format[]) {
        expect(await detect(locked[format]), format).toMatchObject({ detected: format, encrypted: true });
      }
    });

    it('open with the password: the PDF holds the words of the unencrypted document', {
      timeout: 240_000,
    }, async () => {
      for (const [format, name] of Object.entries(SOURCES) as [Format, string][]) {
        plainText[format] ??= pdfText(
          (await convertWith(libreoffice, format, 'pdf', fixture(name))).files[0]!,
        );
        const { files, leftover } = await convertWith(libreoffice, format, 'pdf', locked[format], {
          password: PASSWORD,
        });
        expect(leftover).toEqual([]);
        const words = pdfText(files[0]!).replace(/\s+/g, ' ').trim();
        expect(words.length, format).toBeGreaterThan(0);
        expect(words, format).toBe(plainText[format]!.replace(/\s+/g, ' ').trim());
      }
    });

    it('answer ENCRYPTED_DOCUMENT without the password and with a wrong one, saying how to give it', {
      timeout: 120_000,
    }, async () => {
      for (const format of Object.keys(SOURCES) as Format[]) {
        const none = await expectCode(
          convertWith(libreoffice, format, 'pdf', locked[format]),
          'ENCRYPTED_DOCUMENT',
        );
        expect(none.message).toMatch(/password/i);
        const wrong = await expectCode(
          convertWith(libreoffice, format, 'pdf', locked[format], { password: 'not-the-one' }),
          'ENCRYPTED_DOCUMENT',
        );
        expect(wrong.message).not.toContain('not-the-one');
      }
    });
  },
);

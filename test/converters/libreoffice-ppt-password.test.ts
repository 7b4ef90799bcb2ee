import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unlockPpt } from '../../converters/libreoffice/ppt-unlock.js';
import libreoffice from '../../converters/libreoffice.js';
import { detect } from '../../src/index.js';
import { fixture } from '../detect/helpers.js';
import { LOCKED_TEXT, msoffcryptoPython, unoPython } from '../helpers/locked-office.js';
import { makeLockedPpt, poiClassPath } from '../helpers/locked-ppt.js';
import { convertWith, expectCode, pdfText } from '../helpers/office.js';
import { stepContext } from '../helpers/step.js';

/**
 * A PowerPoint 97-2003 deck saved with a password: RC4 CryptoAPI, the only encryption the PPT
 * format has. LibreOffice saves no encrypted PPT, so Apache POI writes it (test/helpers/locked-ppt.ts),
 * and Debian's msoffcrypto-tool, a third implementation, reads its encryption and opens it with the
 * password before fileconv is asked.
 */

const PASSWORD = 'deck-secret-3';
/** A 16x16 PNG on the slide: the deck's Pictures stream is encrypted too. */
const PICTURE = fixture('image.png');
const dir = mkdtempSync(join(tmpdir(), 'fileconv-ppt-locked-'));
let locked: string;

beforeAll(async () => {
  if (poiClassPath) locked = await makeLockedPpt(dir, PASSWORD, LOCKED_TEXT.impress, PICTURE);
}, 150_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * What msoffcrypto-tool reads of the file: its format, whether it is encrypted, the encryption the
 * password unlocks, whether the decrypted deck holds the slide's text, and whether a wrong password
 * is refused.
 */
function inspect(path: string): Record<string, unknown> {
  const script = `
import io, json, os, sys, msoffcrypto
from msoffcrypto.exceptions import InvalidKeyError
def open_file():
    return msoffcrypto.OfficeFile(open(sys.argv[1], 'rb'))
f = open_file()
report = dict(format=f.format, encrypted=f.is_encrypted())
f.load_key(password=os.environ['OFFICE_PASSWORD'])
out = io.BytesIO(); f.decrypt(out)
report.update(type=f.type, holds_text=os.environ['SLIDE_TEXT'].encode('latin-1') in out.getvalue())
try:
    open_file().load_key(password='not-' + os.environ['OFFICE_PASSWORD']); report['wrong_refused'] = False
except InvalidKeyError:
    report['wrong_refused'] = True
print(json.dumps(report))
`;
  return JSON.parse(
    execFileSync(msoffcryptoPython!, ['-c', script, path], {
      encoding: 'utf8',
      env: { ...process.env, OFFICE_PASSWORD: PASSWORD, SLIDE_TEXT: LOCKED_TEXT.impress },
    }),
  );
}

/** Width x height of each picture in the PDF, from poppler's pdfimages. */
function imageSizes(pdf: string): string[] {
  const rows = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).trim().split('\n').slice(2);
  return rows.map((row) => {
    const [, , , width, height] = row.trim().split(/\s+/);
    return `${width}x${height}`;
  });
}

describe.skipIf(!poiClassPath)(
  'a password-protected PowerPoint 97 deck (skipped: no Java with Apache POI)',
  () => {
    it.skipIf(!msoffcryptoPython)(
      'is an RC4 CryptoAPI PPT that the password opens, by another implementation (skipped: no python3-msoffcrypto-tool)',
      () => {
        expect(inspect(locked)).toEqual({
          format: 'ppt97',
          encrypted: true,
          type: 'rc4_cryptoapi',
          holds_text: true,
          wrong_refused: true,
        });
        // Encrypted for real: the slide's words are nowhere in the saved bytes, in either encoding.
        const bytes = readFileSync(locked);
        expect(bytes.includes(Buffer.from(LOCKED_TEXT.impress, 'latin1'))).toBe(false);
        expect(bytes.includes(Buffer.from(LOCKED_TEXT.impress, 'utf16le'))).toBe(false);
        expect(bytes.includes(readFileSync(PICTURE).subarray(8))).toBe(false);
      },
    );

    it('is detected as ppt with encrypted: true, by its name and by its bytes alone', async () => {
      expect(await detect(locked)).toMatchObject({
        declared: 'ppt',
        detected: 'ppt',
        match: true,
        encrypted: true,
      });
      const nameless = join(dir, 'upload');
      copyFileSync(locked, nameless);
      const report = await detect(nameless);
      expect(report).toMatchObject({ detected: 'ppt', encrypted: true });
      expect(report.confidence).toBeGreaterThanOrEqual(0.9);
    });

    it.skipIf(!unoPython)(
      'opens with the password on the way to PDF, and saves a PPT without it (skipped: no python3-uno)',
      { timeout: 240_000 },
      async () => {
        const { files, leftover } = await convertWith(libreoffice, 'ppt', 'pdf', locked, {
          password: PASSWORD,
        });
        expect(leftover).toEqual([]);
        expect(pdfText(files[0] as string).replace(/\s+/g, ' ')).toContain(LOCKED_TEXT.impress);
        // The picture came through decrypted: the PDF shows it at its own 16x16 pixels.
        expect(imageSizes(files[0] as string)).toContain('16x16');

        const unlocked = await convertWith(libreoffice, 'ppt', 'ppt', locked, { password: PASSWORD });
        const path = unlocked.files[0] as string;
        expect(await detect(path)).toMatchObject({ detected: 'ppt' });
        expect((await detect(path)).encrypted).toBeUndefined();
        const again = await convertWith(libreoffice, 'ppt', 'pdf', path);
        expect(pdfText(again.files[0] as string).replace(/\s+/g, ' ')).toContain(LOCKED_TEXT.impress);
        expect(imageSizes(again.files[0] as string)).toContain('16x16');
      },
    );

    it.skipIf(!unoPython)(
      'answers ENCRYPTED_DOCUMENT without the password and with a wrong one, saying how to give it (skipped: no python3-uno)',
      { timeout: 120_000 },
      async () => {
        const none = await expectCode(convertWith(libreoffice, 'ppt', 'pdf', locked), 'ENCRYPTED_DOCUMENT');
        expect(none.message).toMatch(/password/i);
        const wrong = await expectCode(
          convertWith(libreoffice, 'ppt', 'pdf', locked, { password: 'not-the-one' }),
          'ENCRYPTED_DOCUMENT',
        );
        expect(wrong.message).not.toContain('not-the-one');
      },
    );
  },
);

describe('a password-protected PowerPoint 97 deck without Java', () => {
  it('fails saying which packages open it, before any engine runs', async () => {
    const path = process.env.PATH;
    process.env.PATH = mkdtempSync(join(dir, 'no-java-'));
    try {
      const error = await expectCode(
        unlockPpt(join(dir, 'any.ppt'), PASSWORD, stepContext()),
        'CONVERT_FAILED',
      );
      expect(error.message).toMatch(/default-jre-headless and libapache-poi-java/);
      expect(error.message).not.toContain(PASSWORD);
    } finally {
      process.env.PATH = path;
    }
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDeclaredFormat, declaredConflict } from '../../src/detect/declared.js';
import { CONFIDENCE } from '../../src/detect/types.js';
import { expectCode, tempDir } from '../helpers/step.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'detect');

/** The one rule for converting a file as its declared format, on real files. */
describe('declared format check', () => {
  it('refuses files that are a different kind of thing than declared', async () => {
    const dir = tempDir();
    const svg = join(dir, 'x.png');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
    const e = await expectCode(checkDeclaredFormat(svg, 'png'), 'FORMAT_MISMATCH');
    expect(e.extra).toEqual({ declared: 'png', detected: 'svg' });
    const mvg = join(dir, 'x.bmp');
    writeFileSync(mvg, "push graphic-context\nviewbox 0 0 1 1\nimage over 0,0 0,0 '/etc/passwd'\n");
    await expectCode(checkDeclaredFormat(mvg, 'bmp'), 'FORMAT_MISMATCH');
    await expectCode(checkDeclaredFormat(join(FIXTURES, 'page.html'), 'docx'), 'FORMAT_MISMATCH');
    await expectCode(checkDeclaredFormat(join(FIXTURES, 'image.jpg'), 'png'), 'FORMAT_MISMATCH');
    await expectCode(checkDeclaredFormat(join(FIXTURES, 'document.docx'), 'odt'), 'FORMAT_MISMATCH');
  });

  it('accepts files that are what they say, and formats one reader opens alike', async () => {
    for (const [file, declared] of [
      ['image.png', 'png'],
      ['document.docx', 'docx'],
      ['document.pdf', 'pdf'],
      ['archival.pdfa.pdf', 'pdfa'],
      ['audio.m4a', 'mp4'],
      ['notes.txt', 'md'],
      ['page.html', 'txt'],
      ['config.json', 'yaml'],
    ] as const) {
      // Accepted: what the file is comes back, for the checks that follow (versions no engine opens).
      await expect(
        checkDeclaredFormat(join(FIXTURES, file), declared),
        `${file} as ${declared}`,
      ).resolves.toMatchObject({ id: expect.any(String) });
    }
  });

  it('leaves weak findings (truncated or unknown bytes) to the engine', () => {
    expect(declaredConflict('png', { id: 'bin', confidence: CONFIDENCE.UNKNOWN })).toBeUndefined();
    expect(declaredConflict('docx', { id: 'zip', confidence: CONFIDENCE.WEAK })).toBeUndefined();
    expect(declaredConflict('docx', { id: 'zip', confidence: CONFIDENCE.CONTAINER })).toMatch(/ZIP archive/);
  });
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replacementPairs } from '../../src/fonts/catalog.js';
import {
  type FontconfigVariant,
  fontconfigFile,
  fontconfigXml,
  OUTLINE_EMOJI,
} from '../../src/fonts/fontconfig.js';
import { fileScopedDir } from '../helpers/office.js';

const fixtures = fileScopedDir('fileconv-fonts-conf-');
const before = process.env.FILECONV_TMPDIR;
beforeAll(() => {
  process.env.FILECONV_TMPDIR = fixtures.dir;
});
afterAll(() => {
  if (before === undefined) delete process.env.FILECONV_TMPDIR;
  else process.env.FILECONV_TMPDIR = before;
  fixtures.cleanup();
});

function fcMatch(conf: string, pattern: string): string[] {
  const out = execFileSync('fc-match', ['--format=%{family}', pattern], {
    encoding: 'utf8',
    env: { ...process.env, FONTCONFIG_FILE: conf },
  });
  return out.split(',');
}

describe("the project's fontconfig file", () => {
  const planted = (variant: FontconfigVariant) => {
    const xml = fontconfigXml(variant);
    const hash = createHash('sha256').update(xml).digest('hex').slice(0, 12);
    const dir = join(fixtures.dir, `fileconv-fonts-${hash}-${process.getuid?.() ?? 0}`);
    mkdirSync(dir, { mode: 0o777 });
    writeFileSync(join(dir, 'fonts.conf'), '<fontconfig><dir>/planted</dir></fontconfig>');
    return { dir, xml };
  };

  // Making a folder owned by someone else takes root (as CI and doctor --install run).
  it.skipIf(process.getuid?.() !== 0)('is not taken from a folder another user made', () => {
    const { dir, xml } = planted(OUTLINE_EMOJI);
    chownSync(dir, 65534, 65534);
    const file = fontconfigFile(OUTLINE_EMOJI);
    expect(dirname(file)).not.toBe(dir);
    expect(readFileSync(file, 'utf8')).toBe(xml);
  });

  it('replaces what it finds in its own folder and closes the folder to others', () => {
    const { dir, xml } = planted({});
    const file = fontconfigFile();
    expect(file).toBe(join(dir, 'fonts.conf'));
    expect(readFileSync(file, 'utf8')).toBe(xml);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('sends every font of the replacement table to its substitute, for any fontconfig client', () => {
    const conf = fontconfigFile();
    const wrong = replacementPairs().filter(
      ([font, substitute]) => !fcMatch(conf, font).includes(substitute),
    );
    expect(wrong).toEqual([]);
  });

  it('hides colour fonts from engines that cannot draw them, so emoji come from an outline face', () => {
    const emojiFaces = (conf: string) =>
      execFileSync('fc-list', [':charset=1f600', 'family'], {
        encoding: 'utf8',
        env: { ...process.env, FONTCONFIG_FILE: conf },
      });
    expect(emojiFaces(fontconfigFile())).toContain('Noto Color Emoji');
    const outline = emojiFaces(fontconfigFile(OUTLINE_EMOJI));
    expect(outline).not.toContain('Noto Color Emoji');
    expect(outline).toContain('Symbola');
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createLockedProfile } from '../../converters/office/profile.js';
import { fileScopedDir } from '../helpers/office.js';
import { embeddedFonts } from './pdf-fonts.js';

/*
 * LibreOffice's own replacement table, written into every profile fileconv makes, picks the
 * substitute even where fontconfig alone would not: the conversions here run with the system's
 * fontconfig, without the project's aliases.
 */

const fixtures = fileScopedDir('fileconv-fonts-table-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

const HTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Fonts</title></head><body>
<p style="font-family: Aptos">Aptos, Office's body font since 2023</p>
<p style="font-family: 'Segoe UI'">Segoe UI, the Windows interface font</p>
<p style="font-family: Consolas">Consolas, the Office code font</p>
<p style="font-family: 'MS Mincho'">MS Mincho: 明朝体の日本語</p>
</body></html>
`;

async function toPdf(profileUrl: string, name: string): Promise<string> {
  const input = join(dir, `${name}.html`);
  writeFileSync(input, HTML);
  const out = join(dir, `out-${name}`);
  mkdirSync(out);
  const r = await execa(
    'soffice',
    [
      '--headless',
      '--norestore',
      `-env:UserInstallation=${profileUrl}`,
      '--infilter=HTML (StarWriter)',
      '--convert-to',
      'pdf:writer_pdf_Export',
      '--outdir',
      out,
      input,
    ],
    { env: { FONTCONFIG_FILE: '/etc/fonts/fonts.conf', HOME: dir }, reject: false, stdin: 'ignore' },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, `${name}.pdf`);
}

describe("LibreOffice's replacement table", () => {
  it('draws Aptos, Segoe UI, Consolas and MS Mincho with their substitutes', async () => {
    const pdf = await toPdf(await createLockedProfile(join(dir, 'profile')), 'table');
    expect([...embeddedFonts(pdf)]).toEqual(
      expect.arrayContaining(['Carlito', 'NotoSans', 'LiberationMono', 'NotoSerifCJKjp']),
    );
  }, 120_000);

  it('is what makes the difference: a profile without it falls to fontconfig', async () => {
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    const embedded = embeddedFonts(await toPdf(pathToFileURL(bare).href, 'bare'));
    expect(embedded.has('Carlito')).toBe(false);
    expect(embedded.has('LiberationMono')).toBe(false);
  }, 120_000);
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { FONT_PACKAGES } from '../../src/fonts/catalog.js';
import { fileScopedDir } from '../helpers/office.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const fixtures = fileScopedDir('fileconv-fonts-doctor-');
const dir = fixtures.dir;
afterAll(() => fixtures.cleanup());

function doctor(args: string[], env: Record<string, string> = {}) {
  // Generated fontconfig files go to this test's folder, not the shared temp folder.
  return execa('node', [BIN, 'doctor', ...args], {
    env: { FILECONV_TMPDIR: dir, ...env },
    reject: false,
    stdin: 'ignore',
  });
}

describe('fileconv doctor and fonts', () => {
  it('finds every font family the engines need', async () => {
    const r = await doctor(['--json']);
    const body = JSON.parse(r.stdout) as { fonts: Array<{ package: string; ok: boolean }> };
    expect(body.fonts.map((f) => f.package)).toEqual(FONT_PACKAGES.map((p) => p.package));
    expect(body.fonts.filter((f) => !f.ok)).toEqual([]);
  }, 60_000);

  it('names a missing family, what it breaks and the package to install', async () => {
    // fontconfig as on a machine without Carlito.
    const conf = join(dir, 'without-carlito.conf');
    writeFileSync(
      conf,
      `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><include>/etc/fonts/fonts.conf</include>
<selectfont><rejectfont><pattern><patelt name="family"><string>Carlito</string></patelt></pattern></rejectfont></selectfont>
</fontconfig>
`,
    );
    const json = await doctor(['--json'], { FONTCONFIG_FILE: conf });
    expect(json.exitCode).toBe(1);
    const body = JSON.parse(json.stdout) as {
      fonts: Array<{ package: string; ok: boolean; missing_families: string[] }>;
      missing_packages: string[];
    };
    expect(body.fonts.find((f) => f.package === 'fonts-crosextra-carlito')).toMatchObject({
      ok: false,
      missing_families: ['Carlito'],
    });
    expect(body.missing_packages).toContain('fonts-crosextra-carlito');
    const text = await doctor([], { FONTCONFIG_FILE: conf });
    expect(text.stdout).toMatch(/MISSING fonts-crosextra-carlito/);
    expect(text.stdout).toContain('no Carlito: Calibri documents reflow');
    expect(text.stdout).toContain('apt-get install -y --no-install-recommends fonts-crosextra-carlito');
  }, 60_000);
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/detect/index.js';
import { webPageEntry } from '../../src/detect/zip.js';
import { formatFromMime, resolveFormat } from '../../src/formats/index.js';
import { zipOutputs } from '../../src/run/zip.js';
import { tempDir } from '../helpers/step.js';

const README = join(import.meta.dirname, '..', '..', 'README.md');

async function zipOf(names: string[]): Promise<string> {
  const path = join(tempDir(), 'site.zip');
  await zipOutputs(
    names.map((name) => ({ path: README, name })),
    path,
  );
  return path;
}

describe('a ZIP holding a web page (htmlzip)', () => {
  it('is detected by index.html at the top level or in the one top folder', async () => {
    expect((await detect(await zipOf(['index.html', 'css/site.css']))).detected).toBe('htmlzip');
    expect((await detect(await zipOf(['site/index.html', 'site/img/a.png']))).detected).toBe('htmlzip');
    expect(webPageEntry(['site/index.html', '__MACOSX/site/._index.html'])).toBe('site/index.html');
  });

  it('other ZIPs stay zip', async () => {
    expect((await detect(await zipOf(['page.html', 'other/index.html']))).detected).toBe('zip');
    expect((await detect(await zipOf(['a/index.html', 'b/index.html']))).detected).toBe('zip');
  });

  it('a .zip holding a web page matches its declared type; zip keeps its media type and extension', async () => {
    const report = await detect(await zipOf(['index.html']), { filename: 'site.zip' });
    expect(report).toMatchObject({ declared: 'zip', detected: 'htmlzip', match: true });
    expect(formatFromMime('application/zip')?.id).toBe('zip');
    expect(resolveFormat('zip')?.id).toBe('zip');
    expect(resolveFormat('html-zip')?.id).toBe('htmlzip');
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pdfaShortcomings } from '../../converters/_pdfa.js';
import ghostscript from '../../converters/ghostscript.js';
import { parseOptions } from '../../src/engine/options.js';
import { loadConverters } from '../../src/engine/registry.js';
import { declaredOptions } from '../../src/plan/options.js';
import { expectCode, runStep, stepContext, tempDir } from '../helpers/step.js';
import { textPdf } from './_image-samples.js';

/** PDF/A-2b by Ghostscript, read back with poppler and qpdf (no veraPDF in Debian). */

function qpdfObject(path: string, id: string): Record<string, unknown> {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${id}`, path], { encoding: 'utf8' }),
  );
  const objects = json.qpdf[1] as Record<string, { value: Record<string, unknown> }>;
  return Object.values(objects)[0]!.value;
}

describe('pdfa: "2b" on pdf-pdf (Ghostscript, result checked)', () => {
  it('writes PDF/A-2b: XMP identification, an output intent, fonts embedded, the text kept', async () => {
    const pdf = await textPdf(tempDir(), ['Archive me please', 'Second page']);
    const { files } = await runStep(ghostscript, 'pdf', 'pdf', pdf, { pdfa: '2b' });
    const out = files[0]!;
    const meta = execFileSync('pdfinfo', ['-meta', out], { encoding: 'utf8' });
    expect(meta).toMatch(/pdfaid:part=['"]2['"]|<pdfaid:part>2</);
    expect(meta).toMatch(/pdfaid:conformance=['"]B['"]|<pdfaid:conformance>B</);
    const root = qpdfObject(out, String(qpdfObject(out, 'trailer')['/Root']).split(' ')[0]!);
    expect(Array.isArray(root['/OutputIntents'])).toBe(true);
    const fonts = execFileSync('pdffonts', [out], { encoding: 'utf8' }).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(0);
    for (const row of fonts) expect(row).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
    expect(execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' })).toContain('Archive me please');
    expect(await pdfaShortcomings(out, stepContext())).toEqual([]);
  });

  it('names what a file that only claims nothing lacks (the check fails a plain PDF)', async () => {
    const pdf = await textPdf(tempDir(), ['Not an archive']);
    const missing = await pdfaShortcomings(pdf, stepContext());
    expect(missing.join('; ')).toMatch(/pdfaid:part 2.*output intent/);
  });

  it('refuses pdfa with a user password: PDF/A forbids encryption', async () => {
    const specs = declaredOptions(await loadConverters());
    const e = await expectCode(
      Promise.resolve().then(() => parseOptions({ pdfa: '2b', user_password: 'pw' }, specs)),
      'INVALID_REQUEST',
    );
    expect(e.message).toMatch(/pdfa cannot be given with user_password: PDF\/A forbids encryption/);
  });

  it('sets document information on a lossy compression, in any script', async () => {
    const pdf = await textPdf(tempDir(), ['Smaller please']);
    const { files } = await runStep(ghostscript, 'pdf', 'pdf', pdf, {
      compress: 'ebook',
      title: 'Rapport (2026) \\ été',
      author: 'Анна',
    });
    const info = execFileSync('pdfinfo', [files[0]!], { encoding: 'utf8' });
    expect(info).toMatch(/^Title:\s+Rapport \(2026\) \\ été$/m);
    expect(info).toMatch(/^Author:\s+Анна$/m);
  });

  it('a password-protected input answers ENCRYPTED_DOCUMENT', async () => {
    const dir = tempDir();
    const pdf = await textPdf(dir, ['Locked']);
    const locked = join(dir, 'locked.pdf');
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', pdf, locked]);
    await expectCode(runStep(ghostscript, 'pdf', 'pdf', locked, { pdfa: '2b' }), 'ENCRYPTED_DOCUMENT');
  });
});

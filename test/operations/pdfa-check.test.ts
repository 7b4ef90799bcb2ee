import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PDFA_2B_RULES, readPdfaFacts } from '../../converters/_pdfa-rules.js';
import {
  ACTIVE_PDF_WORDS,
  activeParts,
  activePdfWithServer,
  convertActivePdf,
} from '../helpers/active-pdf.js';
import { stepContext } from '../helpers/step.js';
import { get, type Json } from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

const fixture = activePdfWithServer('fileconv-pdfa-check-');

/** What poppler and qpdf say of a PDF/A-2b file, independently of the rules under test. */
function expectPdfA2b(path: string): void {
  const meta = execFileSync('pdfinfo', ['-meta', path], { encoding: 'utf8' });
  expect(meta).toMatch(/pdfaid:part=['"]2['"]|<pdfaid:part>2</);
  expect(meta).toMatch(/pdfaid:conformance=['"]B['"]|<pdfaid:conformance>B</);
  expect(execFileSync('pdfinfo', [path], { encoding: 'utf8' })).toMatch(/^Encrypted:\s+no$/m);
  expect(execFileSync('qpdf', ['--json=2', path], { encoding: 'utf8' })).toContain('"/GTS_PDFA1"');
}

describe('PDF/A-2b: the rules checked, and said', () => {
  it('each rule names what a file with scripts and no output intent lacks', async () => {
    const facts = await readPdfaFacts(fixture.pdf, stepContext());
    const failed = PDFA_2B_RULES.map((r) => r.check(facts)).filter(Boolean);
    expect(failed).toEqual([
      'the XMP does not say pdfaid:part 2',
      'it has no output intent',
      '1 font(s) are not embedded',
      'the document catalog has additional actions (/AA)',
    ]);
  });

  it('through the server, sanitized then written as PDF/A-2b, the timeline lists every rule checked', async () => {
    const { id, out } = await convertActivePdf(fixture, { sanitize: true, pdfa: '2b' });
    expectPdfA2b(out);
    expect(activeParts(out)).not.toContain('/JavaScript');
    expect(activeParts(out)).not.toContain('pdfdetach: embedded files');
    expect(execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' })).toContain(ACTIVE_PDF_WORDS);
    const said = JSON.stringify(
      (await get(`${fixture.server.url}/api/public/requests/${id}/timeline`)).json as Json,
    );
    const line = /written as PDF\/A-2b, checked: ([^"]*)/.exec(said)?.[1] ?? '';
    for (const rule of PDFA_2B_RULES) expect(line).toContain(rule.name);
    expect(line).toMatch(/Not validated: no full PDF\/A validator/);
  });

  it('on the command line, the result read back by poppler and qpdf', async () => {
    const out = join(fixture.dir, 'cli.pdf');
    const r = await execa('node', [BIN, 'convert', fixture.pdf, '--to', 'pdf', '-O', 'pdfa=2b', '-o', out], {
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expectPdfA2b(out);
    const facts = await readPdfaFacts(out, stepContext());
    expect(PDFA_2B_RULES.map((rule) => rule.check(facts)).filter(Boolean)).toEqual([]);
  });
});

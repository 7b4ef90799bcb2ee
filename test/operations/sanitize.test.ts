import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_PDF_WORDS,
  activeParts,
  activePdfWithServer,
  convertActivePdf,
} from '../helpers/active-pdf.js';
import { get, type Json } from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));

const fixture = activePdfWithServer('fileconv-sanitize-');

const text = (path: string) => execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' });

describe('sanitize: true', () => {
  it('the sample holds every kind of active and hidden content', () => {
    expect(activeParts(fixture.pdf)).toEqual(
      expect.arrayContaining([
        '/OpenAction',
        '/AA',
        '/JavaScript',
        '/URI',
        '/Metadata',
        '/EmbeddedFiles',
        '/Info',
        'pdfinfo: document information',
        'pdfinfo: XMP',
        'pdfdetach: embedded files',
      ]),
    );
  });

  it('through the server: everything removed, the page and its words kept, the timeline says what went', async () => {
    const { id, out } = await convertActivePdf(fixture, { sanitize: true, title: 'Clean copy' });
    // The title asked with it is written after the removal (OPERATION_ORDER.sanitize < metadata).
    expect(activeParts(out)).toEqual(['/Info', 'pdfinfo: document information']);
    expect(execFileSync('pdfinfo', [out], { encoding: 'utf8' })).toMatch(/^Title:\s+Clean copy$/m);
    expect(execFileSync('pdfinfo', [out], { encoding: 'utf8' })).not.toMatch(/Someone/);
    expect(text(out)).toContain(ACTIVE_PDF_WORDS);
    const timeline = (await get(`${fixture.server.url}/api/public/requests/${id}/timeline`)).json as Json;
    const said = JSON.stringify(timeline);
    for (const what of [
      'open action',
      'document JavaScript',
      'embedded files',
      'XMP metadata',
      'link and attachment annotations',
      'document information',
    ])
      expect(said).toContain(what);
  });

  it('on the command line, checked by qpdf, pdfinfo and pdfdetach', async () => {
    const out = join(fixture.dir, 'cli.pdf');
    const r = await execa(
      'node',
      [BIN, 'convert', fixture.pdf, '--to', 'pdf', '-O', 'sanitize=true', '-o', out],
      {
        reject: false,
        stdin: 'ignore',
      },
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(activeParts(out)).toEqual([]);
    expect(text(out)).toContain(ACTIVE_PDF_WORDS);
    expect(execFileSync('qpdf', ['--check', out], { encoding: 'utf8' })).toMatch(
      /No syntax or stream encoding errors/,
    );
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  downloadArtifact,
  filePart,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';

/** The words on the page of activePdf, which every sanitized copy must keep. */
export const ACTIVE_PDF_WORDS = 'Quarterly figures';

const XMP =
  '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
  '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>xmp-person</dc:creator></rdf:Description>' +
  '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

/**
 * A one-page PDF with everything `sanitize` removes: an open action and a document script
 * (JavaScript), additional actions, a web link, an XMP packet (on the catalog and on the page's
 * content stream), document information, and an embedded file (added by poppler's pdfattach).
 */
export function activePdf(dir: string): string {
  const content = `BT /F1 18 Tf 20 100 Td (${ACTIVE_PDF_WORDS}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 6 0 R /AA << /WC 6 0 R >> /Names << /JavaScript << /Names [(hello) 6 0 R] >> >> /Metadata 7 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [8 0 R] >>',
    `<< /Metadata 7 0 R /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    "<< /S /JavaScript /JS (app.alert\\('hi'\\)) >>",
    `<< /Type /Metadata /Subtype /XML /Length ${XMP.length} >>\nstream\n${XMP}\nendstream`,
    '<< /Type /Annot /Subtype /Link /Rect [10 10 200 40] /A << /S /URI /URI (https://example.com/tracker) >> >>',
    '<< /Title (Secret title) /Author (Someone) >>',
  ];
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [i, o] of objects.entries()) {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 9 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const bare = join(dir, 'active-bare.pdf');
  writeFileSync(bare, body, 'latin1');
  writeFileSync(join(dir, 'note.txt'), 'attached secret\n');
  const pdf = join(dir, 'active.pdf');
  execFileSync('pdfattach', [bare, join(dir, 'note.txt'), pdf]);
  return pdf;
}

/** What a PDF still holds of what sanitize removes, read by qpdf, pdfinfo and pdfdetach. */
export function activeParts(pdf: string): string[] {
  const json = execFileSync('qpdf', ['--json=2', pdf], { encoding: 'utf8' });
  const keys = [
    '/OpenAction',
    '/AA',
    '/A',
    '/JavaScript',
    '/JS',
    '/URI',
    '/Metadata',
    '/EmbeddedFiles',
    '/Info',
  ];
  const found = keys.filter((k) => json.includes(`"${k}"`));
  const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
  if (/^(Title|Author):/m.test(info)) found.push('pdfinfo: document information');
  if (/^Metadata Stream:\s+yes/m.test(info)) found.push('pdfinfo: XMP');
  const attached = execFileSync('pdfdetach', ['-list', pdf], { encoding: 'utf8' });
  if (!/^0 embedded files/m.test(attached)) found.push('pdfdetach: embedded files');
  return found;
}

/**
 * A test file's shared fixture: the active PDF in a scratch folder and a started test server,
 * made before its tests and removed after them. Read the fields inside tests (they are set by
 * then).
 */
export function activePdfWithServer(prefix: string): { dir: string; pdf: string; server: TestServer } {
  const fixture = {} as { dir: string; pdf: string; server: TestServer };
  beforeAll(async () => {
    fixture.dir = tempDir(prefix);
    fixture.pdf = activePdf(fixture.dir);
    fixture.server = await startTestServer();
  });
  afterAll(async () => {
    await fixture.server?.stop();
    removeDir(fixture.server?.dataDir ?? '');
    removeDir(fixture.dir ?? '');
  });
  return fixture;
}

/** Converts the fixture's PDF to PDF with `options` through its server; the request id and the result. */
export async function convertActivePdf(
  fixture: { dir: string; pdf: string; server: TestServer },
  options: Record<string, unknown>,
): Promise<{ id: string; out: string }> {
  const res = await post(`${fixture.server.url}/api/public/convert`, [
    metaPart({ conversion: 'pdf-pdf', options }),
    filePart('active.pdf', readFileSync(fixture.pdf), 'application/pdf'),
  ]);
  expect(res.status, res.text).toBe(202);
  const id = res.json.request_id as string;
  const done = await waitDone(fixture.server.url, id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  const out = await downloadArtifact(
    fixture.server.url,
    id,
    done.artifacts[0].name,
    fixture.dir,
    'server.pdf',
  );
  return { id, out };
}

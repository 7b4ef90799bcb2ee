/**
 * A merge of N PDFs through `fileconv serve` (upload of N file parts, long-poll with ?wait,
 * 302, download) against `qpdf --empty --pages a.pdf b.pdf ... -- out.pdf` run by hand on the
 * same files, in the same run. Rows: the merge as asked by default (with the outline of one
 * bookmark per input) and with `bookmarks: false`. Ratio = ours / qpdf's wall time, medians of a
 * few rounds; sizes are the output's against the inputs' sum.
 *
 *   tsx bench/merge.ts [N]
 */
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import {
  download,
  MULTIPART_TYPE,
  multipartBody,
  removeDir,
  seconds,
  startServe,
  tempDir,
  waitFinished,
} from './lib/serve.js';
import { median } from './lib/stats.js';

const N = Number(process.argv[2] ?? 20);
const ROUNDS = 3;

/** A PDF of `pages` pages of text, written by Ghostscript. */
function makePdf(path: string, n: number, pages: number): void {
  const ps = `${path}.ps`;
  const body = Array.from(
    { length: pages },
    (_, p) =>
      `72 700 moveto (Document ${n} page ${p + 1}) show 72 660 moveto (${'lorem ipsum '.repeat(6)}) show showpage`,
  ).join('\n');
  writeFileSync(ps, `%!PS\n/Helvetica findfont 16 scalefont setfont\n${body}\n`);
  execFileSync('gs', [
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-q',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${path}`,
    ps,
  ]);
}

async function mergeOverHttp(base: string, files: string[], options: object, dest: string): Promise<void> {
  const res = await request(`${base}/api/public/convert`, {
    method: 'POST',
    headers: { 'content-type': MULTIPART_TYPE },
    body: Readable.from(
      multipartBody([
        { name: 'meta', body: JSON.stringify({ to: 'pdf', options }), contentType: 'application/json' },
        ...files.map((path, i) => ({
          name: 'file',
          filename: `doc-${i + 1}.pdf`,
          contentType: 'application/pdf',
          body: { path },
        })),
      ]),
    ),
  });
  const answer = (await res.body.json()) as { request_id?: string };
  if (res.statusCode !== 202 || !answer.request_id) throw new Error(`convert answered ${res.statusCode}`);
  const done = await waitFinished(base, answer.request_id);
  if (done.status !== 'succeeded') throw new Error(`merge ${done.status}: ${JSON.stringify(done.error)}`);
  await download(base, answer.request_id, 'pdf', dest);
}

async function main(): Promise<void> {
  const dir = tempDir('fileconv-bench-merge-');
  const server = await startServe(join(dir, 'data'), ['--max-queued', '1000']);
  try {
    const files = Array.from({ length: N }, (_, i) => {
      const path = join(dir, `doc-${i + 1}.pdf`);
      makePdf(path, i + 1, 3);
      return path;
    });
    const inputBytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const qpdfOut = join(dir, 'qpdf.pdf');
    const qpdf = () => execFileSync('qpdf', ['--empty', '--pages', ...files, '--', qpdfOut]);
    const cases = [
      { label: `merge of ${N} PDFs (3 pages each), bookmarks`, options: {} },
      { label: `merge of ${N} PDFs (3 pages each), no bookmarks`, options: { bookmarks: false } },
    ];
    // One unmeasured round each: the server's first merge loads its engines' modules.
    await mergeOverHttp(server.url, files, {}, join(dir, 'warm.pdf'));
    qpdf();
    console.log(`inputs: ${N} PDFs, ${inputBytes} bytes; ${ROUNDS} rounds, medians`);
    console.log('case | fileconv (s) | qpdf by hand (s) | ratio | output bytes (fileconv / qpdf)');
    for (const c of cases) {
      const ours: number[] = [];
      const theirs: number[] = [];
      const out = join(dir, 'ours.pdf');
      for (let r = 0; r < ROUNDS; r++) {
        ours.push(await seconds(() => mergeOverHttp(server.url, files, c.options, out)));
        theirs.push(await seconds(async () => qpdf()));
      }
      const a = median(ours);
      const b = median(theirs);
      console.log(
        `${c.label} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(a / b).toFixed(2)}x | ${statSync(out).size} / ${statSync(qpdfOut).size}`,
      );
    }
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

await main();

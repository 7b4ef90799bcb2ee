/**
 * The first conversion after a server starts, with `--warm chromium,libreoffice` against without,
 * in the same run: a one-page invoice to PDF (Chromium) and a DOCX to PDF (LibreOffice), each
 * timed through the API (upload, long-poll, 302, download) on a server started for it. Both
 * servers get the same settling time after /readyz before the conversion is sent, and the two
 * kinds of start alternate. Ratio = with --warm / without (lower is better).
 *
 *   tsx bench/first-conversion.ts [rounds]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { invoiceHtml } from '../test/converters/_web-pages.js';
import { makeDocx } from '../test/office-pool/inputs.js';
import { convertOverHttp, removeDir, seconds, startServe, tempDir } from './lib/serve.js';
import { median } from './lib/stats.js';

const ROUNDS = Number(process.argv[2] ?? 3);
/** Long enough for both engines to start (about 2 s each here) on a server given --warm. */
const SETTLE_MS = 8_000;

const dir = tempDir('fileconv-bench-first-');
const html = join(dir, 'invoice.html');
writeFileSync(html, invoiceHtml(true));
const docx = makeDocx(dir, 1);
const CASES = [
  { label: 'html-pdf', input: html, name: 'invoice.html' },
  { label: 'docx-pdf', input: docx, name: 'report.docx' },
] as const;

const times: Record<string, { warm: number[]; cold: number[] }> = {};
let n = 0;

async function firstConversion(label: string, input: string, name: string, warm: boolean): Promise<number> {
  const server = await startServe(join(dir, `data-${n++}`), warm ? ['--warm', 'chromium,libreoffice'] : []);
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return await seconds(() => convertOverHttp(server.url, label, input, name, join(dir, `out-${n}.pdf`)));
  } finally {
    await server.stop();
  }
}

try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of CASES) {
      times[c.label] ??= { warm: [], cold: [] };
      // Alternate which start goes first, so a machine getting busier weighs on both.
      const order = round % 2 === 1 ? [true, false] : [false, true];
      for (const warm of order) {
        const s = await firstConversion(c.label, c.input, c.name, warm);
        times[c.label]![warm ? 'warm' : 'cold'].push(s);
        console.log(
          `round ${round} ${c.label} ${warm ? 'with --warm' : 'without'}: ${(s * 1000).toFixed(0)} ms`,
        );
      }
    }
  }
  for (const [label, t] of Object.entries(times)) {
    const warm = median(t.warm);
    const cold = median(t.cold);
    console.log(
      `${label}: first conversion after start, median ${(warm * 1000).toFixed(0)} ms with --warm, ${(cold * 1000).toFixed(0)} ms without`,
    );
    console.log(`first-${label}: ${(warm / cold).toFixed(3)} (with --warm / without; lower is better)`);
  }
} finally {
  removeDir(dir);
}

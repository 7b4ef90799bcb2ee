/**
 * Steady load: documents sent back to back, with no pauses, by 1, 2, 4 and 8 clients at once,
 * through a started `fileconv serve` (upload, long-poll, 302, download: the whole cycle a client
 * sees), against each engine's own floor at the same concurrency, in the same run. Each level runs
 * the server and then its floor, the next level the other way round, so a machine whose load
 * drifts weighs on both alike.
 *
 * Workloads, each with its floor:
 * - html-pdf, one-page invoices: a warm Playwright browser of the same Chromium opening a fresh
 *   context and page per document (the close is not waited for);
 * - docx-pdf, one-page reports: LibreOffice's warm pool driven over UNO, without the service
 *   (converters/libreoffice/pool.ts, the pool the server itself uses);
 * - csv-json, 200-row tables: the data engine's step run directly;
 * - pdf-rotate, a 10-page text PDF turned 90 degrees: qpdf's own command.
 *
 * Prints, per workload and level: documents a second, p50 and p95 in ms for both sides, and the
 * p50 ratio server / floor; then a Markdown table and a mermaid chart of p50 against the number
 * of clients per workload, as docs/performance.md shows them.
 *
 *   tsx bench/steady.ts [--documents N] [--levels 1,2,4,8] [--only html-pdf,docx-pdf,csv-json,pdf-rotate]
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_NAMES } from '../converters/chromium/launch.js';
import { DEFAULT_MARGIN } from '../converters/chromium/print.js';
import { closeOfficePool, convertWithPool, officePoolAvailable } from '../converters/libreoffice/pool.js';
import { findBinary } from '../src/run/binary.js';
import { textPdf } from '../test/converters/_image-samples.js';
import { invoiceHtml } from '../test/converters/_web-pages.js';
import { makeDocx } from '../test/office-pool/inputs.js';
import { converter, runDirect } from './lib/direct.js';
import { makeCsv } from './lib/inputs.js';
import { convertOverHttp, removeDir, startServe, tempDir } from './lib/serve.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '16' },
    levels: { type: 'string', default: '1,2,4,8' },
    only: { type: 'string' },
  },
});
const DOCUMENTS = Number(values.documents);
const LEVELS = values.levels.split(',').map(Number);
const WARM_UP = 4;

interface Workload {
  name: string;
  /** What the floor is, for the report. */
  floor: string;
  /** The n-th input (inputs cycle, so caches see different files). */
  input(n: number): string;
  filename: string;
  conversion: string;
  options?: Record<string, unknown>;
  /** One document through the floor, writing into `out`. */
  direct(input: string, out: string): Promise<void>;
}

interface Side {
  perSecond: number;
  p50: number;
  p95: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** `documents` documents shared by `clients` loops that each send the next as soon as theirs is back. */
async function steady(clients: number, documents: number, one: (n: number) => Promise<void>): Promise<Side> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let n = next++; n < documents; n = next++) {
        const t0 = performance.now();
        await one(n);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wall = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { perSecond: documents / wall, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

function assertPdf(path: string): void {
  if (readFileSync(path).subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new Error(`${path} is not a PDF`);
}

const dir = tempDir('fileconv-bench-steady-');
const inputs = join(dir, 'inputs');
const outs = join(dir, 'out');
mkdirSync(inputs);
mkdirSync(outs);
let browser: Browser | undefined;
let server: Awaited<ReturnType<typeof startServe>> | undefined;

try {
  const chromiumPath = findBinary(CHROMIUM_NAMES);
  if (!chromiumPath) throw new Error('Chromium is not installed');
  const qpdf = findBinary(['qpdf']);
  if (!qpdf) throw new Error('qpdf is not installed');
  const office = await officePoolAvailable();
  if (!office.ok) throw new Error(`LibreOffice's pool cannot start: ${office.reason}`);
  browser = await chromium.launch({ executablePath: chromiumPath });
  const data = await converter('data');

  const invoices = Array.from({ length: 8 }, (_, n) => {
    const path = join(inputs, `invoice-${n}.html`);
    writeFileSync(path, invoiceHtml(true).replaceAll('2026-042', `2026-${100 + n}`));
    return path;
  });
  const reports = Array.from({ length: 4 }, (_, n) => makeDocx(inputs, n));
  const tables = Array.from({ length: 4 }, (_, n) => {
    const path = join(inputs, `table-${n}.csv`);
    makeCsv(path, 200);
    return path;
  });
  const pages = Array.from({ length: 10 }, (_, n) => `Page ${n + 1} of the steady load bench`);
  const pdf = await textPdf(inputs, pages, 'ten.pdf');
  let made = 0;
  const out = (ext: string) => join(outs, `${++made}.${ext}`);
  const PDF = {
    format: 'A4',
    margin: { top: DEFAULT_MARGIN, right: DEFAULT_MARGIN, bottom: DEFAULT_MARGIN, left: DEFAULT_MARGIN },
    printBackground: true,
  } as const;

  const all: Workload[] = [
    {
      name: 'html-pdf',
      floor: 'Playwright, fresh context per document',
      input: (n) => invoices[n % invoices.length]!,
      filename: 'invoice.html',
      conversion: 'html-pdf',
      async direct(input, output) {
        const context = await browser!.newContext({ javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(pathToFileURL(input).href, { waitUntil: 'load' });
        writeFileSync(output, await page.pdf(PDF));
        void context.close();
      },
    },
    {
      name: 'docx-pdf',
      floor: "LibreOffice's warm pool over UNO",
      input: (n) => reports[n % reports.length]!,
      filename: 'report.docx',
      conversion: 'docx-pdf',
      async direct(input, output) {
        await convertWithPool({
          input,
          output,
          inputFilter: 'MS Word 2007 XML',
          filter: 'writer_pdf_Export',
          timeoutMs: 120_000,
          signal: new AbortController().signal,
        });
      },
    },
    {
      name: 'csv-json',
      floor: "the data engine's step, run directly",
      input: (n) => tables[n % tables.length]!,
      filename: 'table.csv',
      conversion: 'csv-json',
      direct: (input) => runDirect(data, 'csv', 'json', input, outs),
    },
    {
      name: 'pdf-rotate',
      floor: "qpdf's own command",
      input: () => pdf,
      filename: 'ten.pdf',
      conversion: 'pdf-pdf',
      options: { rotate: 90 },
      async direct(input, output) {
        await run(qpdf, ['--rotate=+90', input, output]);
      },
    },
  ];
  const workloads = all.filter((w) => !values.only || values.only.split(',').includes(w.name));

  server = await startServe(join(dir, 'data'), ['--warm', 'chromium,libreoffice']);
  const base = server.url;
  const target = (w: Workload) => (w.conversion.split('-')[1] === 'json' ? 'json' : 'pdf');
  const viaServer = (w: Workload) => async (n: number) => {
    const dest = out(target(w));
    await convertOverHttp(base, w.conversion, w.input(n), w.filename, dest, w.options);
    if (target(w) === 'pdf') assertPdf(dest);
  };
  const viaFloor = (w: Workload) => async (n: number) => {
    const dest = out(target(w));
    await w.direct(w.input(n), dest);
  };

  const rows: { w: Workload; clients: number; api: Side; floor: Side }[] = [];
  for (const w of workloads) {
    // Both sides warm: the server's engines started, the floor's browser, pool and caches.
    await steady(2, WARM_UP, viaServer(w));
    await steady(2, WARM_UP, viaFloor(w));
    for (const [i, clients] of LEVELS.entries()) {
      let api: Side;
      let floor: Side;
      if (i % 2 === 0) {
        api = await steady(clients, DOCUMENTS, viaServer(w));
        floor = await steady(clients, DOCUMENTS, viaFloor(w));
      } else {
        floor = await steady(clients, DOCUMENTS, viaFloor(w));
        api = await steady(clients, DOCUMENTS, viaServer(w));
      }
      rows.push({ w, clients, api, floor });
      console.log(
        `${w.name} ${clients} client(s): server ${api.perSecond.toFixed(2)}/s p50 ${api.p50.toFixed(0)} ms p95 ${api.p95.toFixed(0)} ms; ` +
          `floor ${floor.perSecond.toFixed(2)}/s p50 ${floor.p50.toFixed(0)} ms p95 ${floor.p95.toFixed(0)} ms; ` +
          `steady-${w.name}-${clients}: ${(api.p50 / floor.p50).toFixed(2)} (p50 server / floor)`,
      );
    }
    rmSync(outs, { recursive: true, force: true });
    mkdirSync(outs);
  }

  console.log(`\n${DOCUMENTS} documents per level and side, back to back, no pauses.\n`);
  console.log(
    '| workload | clients | server docs/s | server p50 ms | server p95 ms | floor docs/s | floor p50 ms | floor p95 ms | p50 server / floor |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const { w, clients, api, floor } of rows)
    console.log(
      `| ${w.name} | ${clients} | ${api.perSecond.toFixed(2)} | ${api.p50.toFixed(0)} | ${api.p95.toFixed(0)} | ` +
        `${floor.perSecond.toFixed(2)} | ${floor.p50.toFixed(0)} | ${floor.p95.toFixed(0)} | ${(api.p50 / floor.p50).toFixed(2)} |`,
    );
  for (const w of workloads) {
    const mine = rows.filter((r) => r.w === w);
    const top = Math.ceil(Math.max(...mine.flatMap((r) => [r.api.p50, r.floor.p50])) * 1.1);
    console.log(
      `\n\`\`\`mermaid\nxychart-beta\n  title "${w.name}: p50 latency (ms) against clients; floor: ${w.floor}"`,
    );
    console.log(`  x-axis "clients" [${mine.map((r) => r.clients).join(', ')}]`);
    console.log(`  y-axis "ms" 0 --> ${top}`);
    console.log(`  line [${mine.map((r) => r.api.p50.toFixed(0)).join(', ')}]`);
    console.log(`  line [${mine.map((r) => r.floor.p50.toFixed(0)).join(', ')}]\n\`\`\``);
  }
  console.log('\n(in each chart the first line is the server, the second its floor)');
} finally {
  await browser?.close();
  await closeOfficePool();
  await server?.stop();
  removeDir(dir);
}

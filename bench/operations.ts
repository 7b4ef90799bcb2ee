/**
 * PDF operations through the API against the same engines' own commands on the same files, in
 * the same run: each case is one conversion over HTTP (`fileconv serve` with its embedded queue:
 * upload, long-poll, 302, download) and the command a user would type for the same result, run
 * one after the other. Ratio = ours / baseline wall time (target: at most 1.2). Then the sizes of
 * our `ebook` and `screen` presets against `gs -dPDFSETTINGS=/ebook` on the same scan-like PDFs.
 *
 *   tsx bench/operations.ts              every case, a few minutes
 *   tsx bench/operations.ts pages ocr    only the named cases
 *
 * One more operation is one more entry in CASES: its input, its options, its baseline commands.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { Agent, setGlobalDispatcher } from 'undici';
import { pdfImageFromFile, writeImagesPdf } from '../converters/_image-pdf.js';
import { overlayPageSvg, type StampValues } from '../converters/_pdf-stamp.js';
import { convertOverHttp, removeDir, seconds, startServe, tempDir } from './lib/serve.js';

const GS = ['gs', '-q', '-dSAFER', '-dBATCH', '-dNOPAUSE'];
const TEXT_PAGES = 40;
const PASSWORD = 'bench-password';
/** Pages of the scan-like PDF: each is a 2380 x 3080 picture, about 17 MB stored losslessly. */
const SCAN_PAGES = 1;

/** The files the cases work on, made once per run. */
interface Inputs {
  dir: string;
  /** A text PDF of TEXT_PAGES letter pages. */
  text: string;
  /** The same, protected with PASSWORD. */
  locked: string;
  /** Scan-like pages: full-page photos of grain, as a flatbed scanner stores them. */
  scan: string;
  /** One scanned page of printed text, no text layer. */
  scannedText: string;
}

type Command = readonly string[];

interface Case {
  label: string;
  input: keyof Omit<Inputs, 'dir'>;
  options: Record<string, unknown>;
  /** The engines' own commands for the same result, run one after another; `out` is a fresh folder. */
  baseline: (input: string, out: string, inputs: Inputs) => Command[];
  rounds?: number;
}

/** The overlay the engines' own commands lay: the same drawing, one SVG per page, by rsvg-convert. */
function overlayCommands(input: string, out: string, o: StampValues): Command[] {
  const sizes = [
    ...execFileSync('pdfinfo', ['-f', '1', '-l', '9999', input], { encoding: 'utf8' }).matchAll(
      /^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+)/gm,
    ),
  ].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
  const svgs = sizes.map((size, i) => {
    const file = join(out, `o-${i + 1}.svg`);
    writeFileSync(file, overlayPageSvg(o, size, i, sizes.length));
    return file;
  });
  return [
    ['rsvg-convert', '--format', 'pdf', '--output', join(out, 'overlay.pdf'), ...svgs],
    ['qpdf', input, '--overlay', join(out, 'overlay.pdf'), '--', join(out, 'out.pdf')],
  ];
}

function iccProfile(): string {
  const base = '/usr/share/ghostscript';
  for (const version of existsSync(base) ? readdirSync(base) : []) {
    const icc = join(base, version, 'iccprofiles', 'default_rgb.icc');
    if (existsSync(icc)) return icc;
  }
  throw new Error('no Ghostscript sRGB profile found');
}

function pdfaCommands(input: string, out: string): Command[] {
  const prologue = join(out, 'intent.ps');
  writeFileSync(
    prologue,
    `%!\n[/_objdef {icc} /type /stream /OBJ pdfmark\n[{icc} << /N 3 >> /PUT pdfmark\n[{icc} (${iccProfile()}) (r) file /PUT pdfmark\n[/_objdef {oi} /type /dict /OBJ pdfmark\n[{oi} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc} /OutputConditionIdentifier (sRGB) >> /PUT pdfmark\n[{Catalog} << /OutputIntents [ {oi} ] >> /PUT pdfmark\n`,
  );
  return [
    [
      ...GS,
      '-dPDFA=2',
      '-dPDFACompatibilityPolicy=1',
      '-sColorConversionStrategy=RGB',
      '-sDEVICE=pdfwrite',
      `--permit-file-read=${iccProfile()}`,
      `-sOutputFile=${join(out, 'out.pdf')}`,
      prologue,
      input,
    ],
  ];
}

const gsPreset = (preset: string, input: string, out: string): Command => [
  ...GS,
  '-sDEVICE=pdfwrite',
  `-dPDFSETTINGS=/${preset}`,
  '-dPassThroughJPEGImages=true',
  '-dDetectDuplicateImages=true',
  '-dCompatibilityLevel=1.5',
  `-sOutputFile=${join(out, 'out.pdf')}`,
  input,
];

const CASES: Case[] = [
  {
    label: 'pages',
    input: 'text',
    options: { pages: '2-5,9' },
    baseline: (i, o) => [
      ['qpdf', i, '--pages', '.', '2-5,9', '--', '--remove-unreferenced-resources=yes', join(o, 'out.pdf')],
    ],
  },
  {
    label: 'split',
    input: 'text',
    options: { split: 10 },
    baseline: (i, o) => [
      ['qpdf', i, '--split-pages=10', '--remove-unreferenced-resources=yes', join(o, 'part.pdf')],
    ],
  },
  {
    label: 'rotate',
    input: 'text',
    options: { rotate: 90 },
    baseline: (i, o) => [['qpdf', i, '--rotate=+90', join(o, 'out.pdf')]],
  },
  {
    label: 'protect',
    input: 'text',
    options: { user_password: PASSWORD },
    baseline: (i, o) => [['qpdf', i, '--encrypt', PASSWORD, 'owner-of-it', '256', '--', join(o, 'out.pdf')]],
  },
  {
    label: 'unlock',
    input: 'locked',
    options: { password: PASSWORD },
    baseline: (i, o) => [['qpdf', `--password=${PASSWORD}`, '--decrypt', i, join(o, 'out.pdf')]],
  },
  {
    label: 'compress-lossless',
    input: 'text',
    options: { compress: 'lossless' },
    baseline: (i, o) => [
      [
        'qpdf',
        i,
        '--recompress-flate',
        '--compression-level=9',
        '--object-streams=generate',
        join(o, 'out.pdf'),
      ],
    ],
  },
  {
    label: 'compress-ebook',
    input: 'scan',
    options: { compress: 'ebook' },
    baseline: (i, o) => [gsPreset('ebook', i, o)],
    rounds: 2,
  },
  {
    label: 'ocr',
    input: 'scannedText',
    options: { ocr: true },
    baseline: (i, o) => [
      [
        'ocrmypdf',
        '--skip-text',
        '--rotate-pages',
        '--output-type',
        'pdf',
        '--optimize',
        '1',
        '--jobs',
        '1',
        i,
        join(o, 'out.pdf'),
      ],
    ],
    rounds: 1,
  },
  {
    label: 'watermark',
    input: 'text',
    options: { watermark: 'CONFIDENTIAL' },
    baseline: (i, o) => overlayCommands(i, o, { watermark: 'CONFIDENTIAL' }),
  },
  {
    label: 'page-numbers',
    input: 'text',
    options: { page_numbers: true, page_numbers_format: 'Page {n} of {total}' },
    baseline: (i, o) =>
      overlayCommands(i, o, { page_numbers: true, page_numbers_format: 'Page {n} of {total}' }),
  },
  {
    label: 'pdfa',
    input: 'text',
    options: { pdfa: '2b' },
    baseline: (i, o) => pdfaCommands(i, o),
    rounds: 2,
  },
];

const DEFAULT_ROUNDS = 3;

/**
 * A new connection pool for each conversion: the baselines run for seconds (a minute for OCR)
 * between two requests, and a kept-alive connection the server closed meanwhile fails the next
 * streamed upload (EPIPE). Connecting on loopback costs well under a millisecond.
 */
function freshConnections(): void {
  setGlobalDispatcher(new Agent());
}

async function makeInputs(dir: string): Promise<Inputs> {
  const ps = join(dir, 'text.ps');
  const pages = Array.from({ length: TEXT_PAGES }, (_, p) => {
    const lines = Array.from(
      { length: 40 },
      (_, l) =>
        `72 ${740 - l * 16} moveto (Page ${p + 1} line ${l + 1}: the quick brown fox jumps over the lazy dog) show`,
    );
    return `${lines.join('\n')}\nshowpage`;
  });
  writeFileSync(ps, `%!PS\n/Helvetica findfont 11 scalefont setfont\n${pages.join('\n')}\n`);
  const text = join(dir, 'text.pdf');
  execFileSync(GS[0]!, [...GS.slice(1), '-sDEVICE=pdfwrite', `-sOutputFile=${text}`, ps]);
  const locked = join(dir, 'locked.pdf');
  execFileSync('qpdf', ['--encrypt', PASSWORD, 'owner-of-it', '256', '--', text, locked]);

  // Scan-like pages: 8.5 x 11 in at 280 dpi, stored losslessly as scanners that keep PNG do.
  const scanPngs: string[] = [];
  for (let i = 0; i < SCAN_PAGES; i++) {
    const png = join(dir, `scan-${i}.png`);
    await sharp({
      create: {
        width: 2380,
        height: 3080,
        channels: 3,
        background: '#d8d2c4',
        noise: { type: 'gaussian', mean: 200, sigma: 18 },
      },
    })
      .withMetadata({ density: 280 })
      .png()
      .toFile(png);
    scanPngs.push(png);
  }
  const scan = join(dir, 'scan.pdf');
  await imagesPdf(scanPngs, scan);

  // A printed page as a 300 dpi scan: text drawn into a picture, no text layer.
  const words = Array.from(
    { length: 30 },
    (_, l) =>
      `<text x="150" y="${300 + l * 90}" font-family="DejaVu Serif" font-size="52">Line ${l + 1} of a scanned contract, clause ${l + 7} applies.</text>`,
  );
  const pagePng = join(dir, 'page.png');
  await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="2550" height="3300"><rect width="100%" height="100%" fill="#fff"/>${words.join('')}</svg>`,
    ),
  )
    .flatten({ background: '#ffffff' })
    .withMetadata({ density: 300 })
    .png()
    .toFile(pagePng);
  const scannedText = join(dir, 'scanned-text.pdf');
  await imagesPdf([pagePng], scannedText);
  return { dir, text, locked, scan, scannedText };
}

/** Pictures as PDF pages, stored as they are (no text layer), as a scanner writes them. */
async function imagesPdf(pngs: string[], output: string): Promise<void> {
  const images = [];
  for (const png of pngs) images.push(await pdfImageFromFile(png, {}));
  await writeImagesPdf(images, output);
}

function runCommands(commands: readonly Command[]): void {
  for (const [bin, ...args] of commands) execFileSync(bin!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function freshDir(parent: string, name: string): string {
  const d = join(parent, name);
  mkdirSync(d, { recursive: true });
  return d;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const cases = CASES.filter((c) => only.length === 0 || only.includes(c.label));
  const dir = tempDir('fileconv-bench-operations-');
  const server = await startServe(join(dir, 'data'), ['--max-queued', '1000']);
  const figures: string[] = [];
  try {
    const inputs = await makeInputs(dir);
    // Untimed: the server's first conversion loads its engines' modules.
    await convertOverHttp(server.url, 'pdf-pdf', inputs.text, 'warm.pdf', join(dir, 'warm.pdf'), {
      rotate: 90,
    });
    console.log('| operation | input | fileconv over HTTP | engine command | ratio |');
    console.log('| --- | --- | ---: | ---: | ---: |');
    for (const c of cases) {
      try {
        figures.push(await runCase(c, inputs, server.url));
      } catch (e) {
        console.log(`| ${c.label} | failed: ${(e as Error).message} | | | |`);
        figures.push(`operations-${c.label}: failed`);
      }
    }
    if (only.length === 0 || only.includes('sizes')) await compressionSizes(server.url, inputs, figures);
    for (const line of figures) console.log(line);
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

/** One case's rounds, ours and the baseline interleaved; prints its table row, returns its figure. */
async function runCase(c: Case, inputs: Inputs, url: string): Promise<string> {
  const input = inputs[c.input];
  const rounds = c.rounds ?? DEFAULT_ROUNDS;
  let ours = 0;
  let theirs = 0;
  // Interleaved, so a busy moment on the shared machine hits both sides alike.
  for (let r = 0; r < rounds; r++) {
    const out = freshDir(inputs.dir, `${c.label}-${r}`);
    const commands = c.baseline(input, out, inputs);
    theirs += await seconds(async () => runCommands(commands));
    freshConnections();
    ours += await seconds(() =>
      convertOverHttp(url, 'pdf-pdf', input, `${c.input}.pdf`, join(out, 'ours.pdf'), c.options),
    );
  }
  const mb = (statSync(input).size / 1024 / 1024).toFixed(1);
  const ms = (s: number) => `${((s / rounds) * 1000).toFixed(0)} ms`;
  console.log(
    `| ${c.label} | ${c.input} (${mb} MB) | ${ms(ours)} | ${ms(theirs)} | ${(ours / theirs).toFixed(2)} |`,
  );
  return `operations-${c.label}: ${(ours / theirs).toFixed(3)} (ours / baseline; lower is better)`;
}

/** Our lossy presets against Ghostscript's own /ebook on the same scan-like PDF: bytes out. */
async function compressionSizes(url: string, inputs: Inputs, figures: string[]): Promise<void> {
  const out = freshDir(inputs.dir, 'sizes');
  runCommands([
    gsPreset('ebook', inputs.scan, out).map((a) =>
      a.replace(join(out, 'out.pdf'), join(out, 'gs-ebook.pdf')),
    ),
  ]);
  const gsEbook = statSync(join(out, 'gs-ebook.pdf')).size;
  const input = statSync(inputs.scan).size;
  console.log(`\n| preset | bytes | of the input | against gs /ebook |`);
  console.log('| --- | ---: | ---: | ---: |');
  console.log(`| input | ${input} | 1.00 | |`);
  console.log(`| gs -dPDFSETTINGS=/ebook | ${gsEbook} | ${(gsEbook / input).toFixed(3)} | 1.00 |`);
  for (const preset of ['ebook', 'screen']) {
    const file = join(out, `${preset}.pdf`);
    freshConnections();
    await convertOverHttp(url, 'pdf-pdf', inputs.scan, 'scan.pdf', file, { compress: preset });
    const size = statSync(file).size;
    console.log(
      `| fileconv ${preset} | ${size} | ${(size / input).toFixed(3)} | ${(size / gsEbook).toFixed(2)} |`,
    );
    figures.push(
      `operations-size-${preset}: ${(size / gsEbook).toFixed(3)} (ours / gs ebook bytes; lower is smaller)`,
    );
  }
}

await main();

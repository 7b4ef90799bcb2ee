/**
 * How cost grows with the work: for each family (office pages, PDF pages, image megapixels, video
 * seconds, data megabytes), one conversion through `fileconv serve` at 1x, 10x and 100x input size;
 * wall time, the server's peak memory above its idle level, and the engines' peak (every process
 * under the server, summed). The baseline is each family's own 1x run in the same run, so the
 * figures read as "10x the input costs N times the time". Then a 1 GB video transcode, where the
 * server's memory must stay flat (the upload, the input and the output are streamed).
 *
 *   tsx bench/growth.ts              every family, then the 1 GB transcode
 *   tsx bench/growth.ts data video   only the named families ("big" for the 1 GB transcode)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { makeCsv, makePhotoPng } from './lib/inputs.js';
import { convertOverHttp, procMemory, removeDir, seconds, startServe, tempDir } from './lib/serve.js';

const SCALES = [1, 10, 100] as const;
const MIB = 1024 * 1024;

interface Family {
  name: string;
  /** What one unit of size is, as the table says it. */
  unit: string;
  conversion: string;
  ext: string;
  /** Makes an input of `n` units at `path`. */
  make(path: string, n: number, dir: string): Promise<void> | void;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: 'ignore' });

/** A DOCX of `pages` pages of running text, each ended by a page break (pandoc's raw OOXML). */
function makeDocx(path: string, pages: number, dir: string): void {
  const paragraph =
    'The committee reviewed the quarterly figures and agreed that the budget for the coming year ' +
    'should follow the plan set out in the appendix, with the changes noted in the minutes. ';
  const page = `${paragraph.repeat(4)}\n\n${paragraph.repeat(3)}\n\n`;
  const breakPage = '```{=openxml}\n<w:p><w:r><w:br w:type="page"/></w:r></w:p>\n```\n\n';
  const md = join(dir, `pages-${pages}.md`);
  writeFileSync(md, Array.from({ length: pages }, (_, i) => `# Section ${i + 1}\n\n${page}`).join(breakPage));
  run('pandoc', [md, '-o', path]);
}

/** A PDF of `pages` pages: the first page of a two-page PDF made by Ghostscript, repeated. */
function makePdf(path: string, pages: number, dir: string): void {
  const ps = join(dir, 'page.ps');
  writeFileSync(
    ps,
    '%!PS\n/Helvetica findfont 14 scalefont setfont\n' +
      Array.from(
        { length: 40 },
        (_, i) =>
          `72 ${760 - i * 17} moveto (Line ${i + 1} of a page of plain text to extract and render.) show`,
      ).join('\n') +
      '\nshowpage\n',
  );
  const one = join(dir, 'one.pdf');
  run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite', `-sOutputFile=${one}`, ps]);
  run('qpdf', ['--empty', '--pages', ...Array.from({ length: pages }, () => one), '--', path]);
}

/** FFmpeg's moving test pattern `testsrc2` (size, rate and length in `pattern`), then `rest`. */
function testPattern(path: string, pattern: string, rest: string[]): void {
  run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=${pattern}`, ...rest, path]);
}

/** A test-pattern video of `secs` seconds, 640x360 at 25 fps, H.264 with AAC sound. */
function makeVideo(path: string, secs: number): void {
  testPattern(path, `s=640x360:r=25:d=${secs}`, [
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${secs}`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
  ]);
}

const FAMILIES: Family[] = [
  { name: 'office', unit: 'pages', conversion: 'docx-pdf', ext: 'docx', make: makeDocx },
  { name: 'pdf', unit: 'pages', conversion: 'pdf-png', ext: 'pdf', make: makePdf },
  {
    name: 'image',
    unit: 'megapixels',
    conversion: 'png-webp',
    ext: 'png',
    make: (path, mp) => {
      const width = Math.round(Math.sqrt(mp * 1e6 * 1.5));
      return makePhotoPng(path, width, Math.round((mp * 1e6) / width));
    },
  },
  {
    name: 'video',
    unit: 'seconds',
    conversion: 'mp4-webm',
    ext: 'mp4',
    make: (path, s) => makeVideo(path, s),
  },
  {
    name: 'data',
    unit: '× 0.1 MB',
    conversion: 'csv-json',
    ext: 'csv',
    // About 75 bytes a row: 0.1 MB at 1x, so 100x (10 MB) stays a file people really send.
    make: (path, n) => makeCsv(path, Math.round((n * 0.1 * MIB) / 75)),
  },
];

/** Every process under `pid` (children, their children...), from /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4, after the command name in parentheses (which may hold spaces).
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) if (pp === p) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}

const rss = (pid: number) => {
  try {
    return procMemory(pid, 'VmRSS');
  } catch {
    return 0;
  }
};

/**
 * Inputs are made synchronously, which holds this process's event loop for as long as that
 * takes: the server closes the idle keep-alive connection meanwhile, and the client, not having
 * read the close, would send the next streamed upload down it (EPIPE, not retried). Each
 * conversion starts on connections of its own.
 */
async function freshConnections(): Promise<void> {
  const old = getGlobalDispatcher();
  setGlobalDispatcher(new Agent());
  await old.close();
}

/** Runs `work` while sampling the server's and its engines' memory; peaks in bytes. */
async function sampled<T>(serverPid: number, work: () => Promise<T>) {
  let server = 0;
  let engines = 0;
  const sample = () => {
    server = Math.max(server, rss(serverPid));
    engines = Math.max(
      engines,
      descendants(serverPid).reduce((sum, p) => sum + rss(p), 0),
    );
  };
  const timer = setInterval(sample, 100);
  try {
    sample();
    const result = await work();
    sample();
    return { result, server, engines };
  } finally {
    clearInterval(timer);
  }
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;

async function measureFamily(
  family: Family,
  base: string,
  serverPid: number,
  dir: string,
): Promise<string[]> {
  const rows: string[] = [];
  let baseline: { time: number } | undefined;
  for (const scale of SCALES) {
    const input = join(dir, `${family.name}-${scale}.${family.ext}`);
    await family.make(input, scale, dir);
    await freshConnections();
    // The engine's first run (a cold LibreOffice or browser, a worker thread) is not the work's cost.
    if (scale === 1)
      await convertOverHttp(base, family.conversion, input, `in.${family.ext}`, join(dir, 'warm.out'));
    const idle = rss(serverPid);
    const out = join(dir, `${family.name}-${scale}.out`);
    try {
      let time = 0;
      const { server, engines } = await sampled(serverPid, async () => {
        time = await seconds(() => convertOverHttp(base, family.conversion, input, `in.${family.ext}`, out));
      });
      baseline ??= { time };
      const inputMb = statSync(input).size / MIB;
      rows.push(
        `| ${family.name} (${family.conversion}) | ${scale} ${family.unit} | ${inputMb.toFixed(1)} MB | ` +
          `${time.toFixed(2)} s | ${(time / baseline.time).toFixed(1)}x | ${mib(Math.max(0, server - idle))} | ${mib(engines)} |`,
      );
    } catch (error) {
      rows.push(
        `| ${family.name} (${family.conversion}) | ${scale} ${family.unit} | failed: ${(error as Error).message.slice(0, 120)} ||||`,
      );
    }
    removeDir(out);
  }
  return rows;
}

/**
 * A 1 GB Matroska of raw video (cheap to decode, so the run measures streaming, not the encoder)
 * made into AVI: the server's resident memory must grow by less than 100 MB.
 */
async function measureBig(base: string, serverPid: number, dir: string): Promise<string> {
  const input = join(dir, 'big.mkv');
  // 640x480 yuv420p is 460,800 bytes a frame: 2,200 frames at 25 fps is 88 s and just over 1 GB.
  testPattern(input, 's=640x480:r=25:d=88', ['-c:v', 'rawvideo', '-pix_fmt', 'yuv420p']);
  await freshConnections();
  const idle = rss(serverPid);
  const out = join(dir, 'big.avi');
  let time = 0;
  const { server } = await sampled(serverPid, async () => {
    time = await seconds(() => convertOverHttp(base, 'mkv-avi', input, 'big.mkv', out));
  });
  const growth = Math.max(0, server - idle);
  const verdict = growth < 100 * MIB ? 'met' : 'NOT met';
  console.log(`growth-1gb-server-rss: ${(growth / MIB).toFixed(0)} MiB (target under 100 MB: ${verdict})`);
  return (
    `1 GB video transcode (mkv-avi, ${(statSync(input).size / 1e9).toFixed(2)} GB in, ${(statSync(out).size / 1e6).toFixed(0)} MB out): ` +
    `${time.toFixed(1)} s, server RSS growth ${mib(growth)} (target under 100 MB: ${verdict})`
  );
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const dir = tempDir('fileconv-bench-growth-');
  const server = await startServe(join(dir, 'data'), ['--max-upload', '2GiB']);
  try {
    const header = [
      '| family | size | input | time | time / 1x | server peak above idle | engines peak |',
      '|---|---|---|---|---|---|---|',
    ];
    const rows: string[] = [];
    for (const family of FAMILIES) {
      if (only.length > 0 && !only.includes(family.name)) continue;
      rows.push(...(await measureFamily(family, server.url, server.pid, dir)));
      console.log(rows.at(-1));
    }
    if (rows.length > 0) console.log(['', ...header, ...rows].join('\n'));
    if (only.length === 0 || only.includes('big'))
      console.log(`\n${await measureBig(server.url, server.pid, dir)}`);
  } finally {
    await server.stop();
    removeDir(dir);
  }
}

await main();

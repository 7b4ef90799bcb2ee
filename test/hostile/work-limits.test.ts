import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import officeCrypto from 'officecrypto-tool';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinary } from '../../src/run/process.js';
import { textPdf } from '../converters/_image-samples.js';
import { fixture } from '../detect/helpers.js';
import {
  type Answer,
  filePart,
  get,
  type Json,
  metaPart,
  type Part,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from '../server/helpers.js';

/**
 * Work that engines do for a request is what it costs, and no request works without bound (issue
 * 38, classes 1 and 2), fed through a started server: merges charged per input and for the
 * engines' work even when they fail, a broken last input refused before any engine runs, a request
 * deadline, and the split's part cap counting pages as often as they are named.
 */

const noQpdf = !findBinary(['qpdf']);
const noGs = !findBinary(['gs']);

let dir: string;
let server: TestServer;
let pdf: Buffer;
let png: Buffer;
let truncatedPng: Buffer;
let ip = 0;

beforeAll(async () => {
  dir = tempDir('fileconv-work-limits-');
  // Each test is its own client (trust-proxy), so each starts with a fresh daily quota of 10.
  server = await startTestServer({ quotaAnon: 'conversions=10', trustProxy: 'true' });
  if (!noGs) pdf = readFileSync(await textPdf(dir, ['one page']));
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer();
  // A real picture cut short: detection and the header read pass, decoding its pixels fails.
  const noise = randomBytes(300 * 300 * 3);
  const whole = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } })
    .png()
    .toBuffer();
  truncatedPng = whole.subarray(0, Math.floor(whole.length / 2));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
  removeDir(dir);
});

/** A PDF header over random bytes: detected as PDF, opened by nothing. */
const brokenPdf = () =>
  Buffer.concat([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), randomBytes(4000)]);

function client(): Record<string, string> {
  return { 'x-forwarded-for': `203.0.113.${++ip}` };
}

const merge = (files: Part[], headers: Record<string, string>) =>
  post(`${server.url}/api/public/convert`, [metaPart({ to: 'pdf' }), ...files], headers);

/** `"conversions";r=N` of the RateLimit header: units left today. */
function left(res: Answer): number | undefined {
  const m = /"conversions";r=(\d+)/.exec(String(res.headers.ratelimit ?? ''));
  return m ? Number(m[1]) : undefined;
}

/** Units left for this client once its requests have settled, read from a small conversion (which takes one). */
async function leftAfter(headers: Record<string, string>): Promise<number | undefined> {
  const res = await post(
    `${server.url}/api/public/convert`,
    [metaPart({ conversion: 'csv-json' }), filePart('a.csv', 'a,b\n1,2\n')],
    headers,
  );
  expect(res.status, res.text).toBe(202);
  await waitDone(server.url, res.json.request_id);
  const l = left(res);
  return l === undefined ? undefined : l + 1;
}

type Event = { kind: string; message: string };

async function timeline(id: string): Promise<Event[]> {
  return (await get(`${server.url}/api/public/requests/${id}/timeline`)).json.events;
}

/** The timeline once its quota line is written (just after the request ends). */
async function settled(id: string): Promise<Event[]> {
  for (let i = 0; i < 100; i++) {
    const events = await timeline(id);
    if (events.some((e) => e.kind === 'refunded' || e.kind === 'charged')) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`request ${id} has no quota line: ${JSON.stringify(await timeline(id))}`);
}

const pngs = (n: number) => Array.from({ length: n }, (_, i) => filePart(`p${i + 1}.png`, png));

describe('quota units: engine work is charged, not refunded', () => {
  it('draws one unit per input of a merge, and refuses a merge larger than what is left', async () => {
    const who = client();
    const tooMany = await merge(pngs(11), who);
    expect(tooMany.status, tooMany.text).toBe(429);
    expect(tooMany.json.error.code).toBe('QUOTA_EXCEEDED');
    expect(tooMany.json.error.message).toMatch(/needs 11 units/);
    const ok = await merge(pngs(3), who);
    expect(ok.status, ok.text).toBe(202);
    expect(left(ok)).toBe(7);
    const done: Json = await waitDone(server.url, ok.json.request_id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(await leftAfter(who)).toBe(7);
  });

  it.skipIf(noQpdf || noGs)(
    'fails a merge with a broken last PDF before any engine runs, and gives every unit back',
    async () => {
      const who = client();
      const res = await merge([...pngs(5), filePart('broken.pdf', brokenPdf())], who);
      expect(res.status, res.text).toBe(202);
      expect(left(res)).toBe(4);
      const done: Json = await waitDone(server.url, res.json.request_id);
      expect(done.status).toBe('failed');
      expect(done.error.code).toBe('MALFORMED_DOCUMENT');
      expect(done.error.message).toMatch(/^Input 6 \(broken\.pdf\)/);
      const events = await settled(res.json.request_id);
      // No input was converted: the PDF was opened (preflight) before the first engine.
      expect(events.filter((e) => e.kind === 'input' || e.kind === 'engine-try')).toEqual([]);
      expect(events.find((e) => e.kind === 'refunded')?.message).toMatch(/6 units/);
      expect(await leftAfter(who)).toBe(10);
    },
  );

  it('keeps the units of inputs converted before a merge failed, refunding only the undelivered one', async () => {
    const who = client();
    const res = await merge([...pngs(4), filePart('cut.png', truncatedPng)], who);
    expect(res.status, res.text).toBe(202);
    const done: Json = await waitDone(server.url, res.json.request_id);
    expect(done.status).toBe('failed');
    expect(done.error.message).toMatch(/^Input 5 \(cut\.png\)/);
    const events = await settled(res.json.request_id);
    expect(events.filter((e) => e.kind === 'input')).toHaveLength(4);
    // Five inputs an engine ran on, less the one not delivered: four units kept of the five drawn.
    expect(events.find((e) => e.kind === 'refunded')?.message).toMatch(/1 unit .* 4 units kept/);
    expect(await leftAfter(who)).toBe(6);
  });

  it('refuses a password-protected office input of a merge before filing it', async () => {
    const who = client();
    const locked = officeCrypto.encrypt(readFileSync(fixture('document.docx')), { password: 'secret' });
    const res = await merge([...pngs(1), filePart('locked.docx', locked)], who);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.message).toMatch(/Input 2 \(locked\.docx\).*password-protected/);
    expect(await leftAfter(who)).toBe(10);
  });
});

describe('split parts are counted as they are made', () => {
  it.skipIf(noQpdf || noGs)(
    'refuses "1,1,1,..." 3,000 times with split 1 before writing a part',
    async () => {
      const res = await post(
        `${server.url}/api/public/convert`,
        [
          metaPart({ conversion: 'pdf-pdf', options: { pages: Array(3000).fill('1').join(','), split: 1 } }),
          filePart('one.pdf', pdf),
        ],
        client(),
      );
      expect(res.status, res.text).toBe(202);
      const done: Json = await waitDone(server.url, res.json.request_id);
      expect(done.status).toBe('failed');
      expect(done.error.code).toBe('OUTPUT_TOO_LARGE');
      const events = await timeline(res.json.request_id);
      expect(events.some((e) => /3000 pages into parts of 1 would make 3000 files/.test(e.message))).toBe(
        true,
      );
      expect(done.artifacts ?? []).toEqual([]);
    },
  );

  it.skipIf(noQpdf || noGs)('makes a part for each time a page is named, reversed ranges too', async () => {
    const res = await post(
      `${server.url}/api/public/convert`,
      [
        metaPart({ conversion: 'pdf-pdf', options: { pages: '1,1,1-1', split: 1 } }),
        filePart('one.pdf', pdf),
      ],
      client(),
    );
    const done: Json = await waitDone(server.url, res.json.request_id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.artifacts.map((a: { name: string }) => a.name).sort()).toEqual([
      'pdf-1',
      'pdf-2',
      'pdf-3',
      'zip',
    ]);
  });
});

describe('a request deadline', () => {
  let short: TestServer;
  beforeAll(async () => {
    short = await startTestServer({ requestDeadline: '3s' });
  });
  afterAll(async () => {
    await short?.stop();
    if (short) removeDir(short.dataDir);
  });

  it.skipIf(noQpdf || noGs)(
    'stops a merge whose input would run until its own step limit (5 min), with CONVERT_FAILED',
    async () => {
      const res = await post(`${short.url}/api/public/convert`, [
        metaPart({ to: 'pdf' }),
        filePart('a.pdf', pdf),
        filePart('loop.ps', '%!PS\n{ 1 pop } loop\n'),
      ]);
      expect(res.status, res.text).toBe(202);
      // Without the deadline the PostScript loop holds Ghostscript for its step's 300 s.
      const done: Json = await waitDone(short.url, res.json.request_id, 60_000);
      expect(done.status).toBe('failed');
      expect(done.error.code).toBe('CONVERT_FAILED');
      expect(done.error.message).toMatch(/time limit of 3 s/);
    },
  );
});

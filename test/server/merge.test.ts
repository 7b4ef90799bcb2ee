import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MERGE_INPUTS } from '../../src/run/merge-limits.js';
import { encryptedPdf } from '../converters/_image-samples.js';
import {
  expectMerged,
  type MergeSample,
  mergeSamples,
  outline,
  pageText,
  pdfPages,
  startPages,
} from '../helpers/merge-inputs.js';
import {
  filePart,
  get,
  type Json,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  tempDir,
  waitDone,
} from './helpers.js';

let server: TestServer;
let dir: string;
let samples: MergeSample[];

beforeAll(async () => {
  dir = tempDir();
  samples = mergeSamples(dir);
  server = await startTestServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
  removeDir(dir);
});

const parts = (list: readonly MergeSample[]) => list.map((s) => filePart(s.name, readFileSync(s.path)));

async function download(id: string, name = 'pdf'): Promise<string> {
  const first = await request(`${server.url}/api/public/requests/${id}/artifacts/${name}`);
  const location = String(first.headers.location);
  await first.body.dump();
  const file = await request(new URL(location, server.url).href);
  const path = join(dir, `${id}-${name}.pdf`);
  writeFileSync(path, Buffer.from(await file.body.arrayBuffer()));
  return path;
}

/** Every file under the server's data folder, by path relative to it. */
function dataFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  walk(server.dataDir, '');
  return out;
}

const blobFiles = () => dataFiles().filter((f) => !f.endsWith('.db') && !/\.db-(wal|shm)$/.test(f));

describe('merging several inputs into one PDF through the API', () => {
  it('merges a bookmarked PDF, a form, a DOCX, a PNG, Markdown and a second form, in order', async () => {
    const res = await post(`${server.url}/api/public/convert`, [metaPart({ to: 'pdf' }), ...parts(samples)]);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.inputs).toEqual(
      samples.map((s) => ({ name: s.name, format: s.name.slice(s.name.lastIndexOf('.') + 1) })),
    );
    const done: Json = await waitDone(server.url, res.json.request_id, 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.conversion).toBe('merge-pdf');
    expect(done.inputs).toHaveLength(samples.length);
    expect(done.artifacts.map((a: Json) => a.name)).toEqual(['pdf']);
    const pdf = await download(done.request_id);

    // Pages, words, outline, form fields and qpdf --check, by poppler and qpdf.
    expectMerged(pdf, samples);
    const starts = startPages(samples);
    const png = samples.findIndex((s) => s.name === 'receipt.png');
    expect(pageText(pdf, starts[png]!).trim()).toBe('');
    const images = execFileSync(
      'pdfimages',
      ['-list', '-f', String(starts[png]), '-l', String(starts[png]), pdf],
      {
        encoding: 'utf8',
      },
    );
    expect(images.trim().split('\n').length).toBe(3);

    // The timeline: one line per input's conversion and one for the merge.
    const timeline = (await get(`${server.url}/api/public/requests/${done.request_id}/timeline`)).json;
    const lines: string[] = timeline.events.map((e: Json) => `${e.kind}: ${e.message}`);
    for (const [i, s] of samples.entries())
      expect(lines.some((l) => l.startsWith(`input: input ${i + 1} (${s.name})`))).toBe(true);
    expect(lines.filter((l) => l.startsWith('merge: '))).toHaveLength(1);
    // Every input was deleted once the request ended.
    await expect
      .poll(() => blobFiles().filter((f) => f.includes(done.request_id) && f.startsWith('inputs')), {
        timeout: 30_000,
      })
      .toEqual([]);
  }, 240_000);

  it('merges without bookmarks when asked, and applies other PDF options to the merge', async () => {
    const two = [samples[1]!, samples[5]!];
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf', options: { bookmarks: false, rotate: 90 } }),
      ...parts(two),
    ]);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const done: Json = await waitDone(server.url, res.json.request_id, 120_000);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const pdf = await download(done.request_id);
    expect(pdfPages(pdf)).toBe(2);
    expect(outline(pdf)).toEqual([]);
    expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/Page rot:\s+90/);
  }, 180_000);

  it('refuses "conversion": "pdf-pdf" when an input is not a PDF, naming it', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf' }),
      ...parts([samples[0]!, samples[3]!]),
    ]);
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('FORMAT_MISMATCH');
    expect(res.json.error.message).toMatch(/^Input 2 \(receipt\.png\)/);
  });

  it(`refuses ${MAX_MERGE_INPUTS * 10} tiny inputs quickly with the limit in the message, keeping no file`, async () => {
    const before = blobFiles();
    const tiny = Array.from({ length: MAX_MERGE_INPUTS * 10 }, (_, i) =>
      filePart(`p${i}.txt`, `page ${i}\n`),
    );
    const res = await post(`${server.url}/api/public/convert`, [metaPart({ to: 'pdf' }), ...tiny]);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_REQUEST');
    expect(res.json.error.message).toContain(`at most ${MAX_MERGE_INPUTS}`);
    // Nothing of this request's in the data folder: no input blob, no scratch file. (Earlier
    // tests' files may still be going away meanwhile: only what is new counts.)
    expect(blobFiles().filter((f) => !before.includes(f))).toEqual([]);
    // The server still answers.
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses more source_urls than a merge takes before fetching any', async () => {
    const urls = Array.from({ length: MAX_MERGE_INPUTS + 1 }, (_, i) => `https://example.com/${i}.pdf`);
    const res = await post(`${server.url}/api/public/convert`, [metaPart({ to: 'pdf', source_urls: urls })]);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(`at most ${MAX_MERGE_INPUTS}`);
  });

  it('fails the request with the code of an input that cannot be opened, naming it', async () => {
    const locked = await encryptedPdf(samples[1]!.path, join(dir, 'locked.pdf'));
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ to: 'pdf' }),
      filePart('chapters.pdf', readFileSync(samples[0]!.path)),
      filePart('locked.pdf', readFileSync(locked)),
    ]);
    expect(res.status).toBe(202);
    const done: Json = await waitDone(server.url, res.json.request_id, 120_000);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe('ENCRYPTED_DOCUMENT');
    expect(done.error.message).toMatch(/^Input 2 \(locked\.pdf\): /);
    // The inputs are deleted just after the failure is stored (failRequest): waited for, not raced.
    await expect
      .poll(() => blobFiles().filter((f) => f.includes(done.request_id)), { timeout: 30_000 })
      .toEqual([]);
  }, 180_000);

  it('fails on a damaged input, naming it', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ to: 'pdf' }),
      filePart('chapters.pdf', readFileSync(samples[0]!.path)),
      filePart('broken.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)])),
    ]);
    expect(res.status).toBe(202);
    const done: Json = await waitDone(server.url, res.json.request_id, 120_000);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe('MALFORMED_DOCUMENT');
    expect(done.error.message).toMatch(/^Input 2 \(broken\.pdf\): /);
  }, 180_000);

  it('keeps hostile characters of input names out of the answers, the timeline and the outline', async () => {
    const hostile = 'ctl\u001b[31m\u0007\u202egnp.exe.pdf';
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ to: 'pdf' }),
      filePart(hostile, readFileSync(samples[1]!.path)),
      filePart('plain.pdf', readFileSync(samples[5]!.path)),
    ]);
    expect(res.status).toBe(202);
    const done: Json = await waitDone(server.url, res.json.request_id, 120_000);
    expect(done.status).toBe('succeeded');
    const timeline = (await get(`${server.url}/api/public/requests/${done.request_id}/timeline`)).json;
    const hidden = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
    const said: string[] = [
      res.json.inputs[0].name,
      done.inputs[0].name,
      ...timeline.events.map((e: Json) => e.message),
    ];
    expect(said[0]).toContain('gnp.exe');
    for (const text of said) expect(text).not.toMatch(hidden);
    const title = outline(await download(done.request_id))[0]!.title;
    expect(title).toContain('gnp.exe');
    expect(title).not.toMatch(hidden);
  }, 120_000);

  it('keeps a single file part working as before', async () => {
    const res = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf', options: { rotate: 180 } }),
      filePart('chapters.pdf', readFileSync(samples[0]!.path)),
    ]);
    expect(res.status).toBe(202);
    expect(res.json.inputs).toBeUndefined();
    const done: Json = await waitDone(server.url, res.json.request_id, 120_000);
    expect(done.status).toBe('succeeded');
    expect(done.conversion).toBe('pdf-pdf');
    expect(done.inputs).toBeUndefined();
    const one = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'pdf-pdf', options: { bookmarks: true } }),
      filePart('chapters.pdf', readFileSync(samples[0]!.path)),
    ]);
    expect(one.status).toBe(400);
    expect(one.json.error.message).toMatch(/option bookmarks does not apply/);
  }, 180_000);
});

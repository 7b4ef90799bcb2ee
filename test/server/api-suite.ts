import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOpaque } from '../../src/server/access/tokens.js';
import { openStores } from '../../src/store/open.js';
import { textPdf } from '../converters/_image-samples.js';
import { outline, pageText, pdfPages } from '../helpers/merge-inputs.js';
import { yamlAliasBomb } from '../helpers/yaml-bomb.js';
import { SETUP_TITLES, type Setup, type SetupName, setupMissing, startSetup } from '../support/setups.js';
import {
  filePart,
  get,
  makeDocx,
  metaPart,
  post,
  removeDir,
  startTestServer,
  submit,
  type TestServer,
  UNREADABLE_BYTES,
  waitDone,
  waitEvent,
} from './helpers.js';

const CSV = 'name,qty\napple,3\npear,5\n';

/**
 * The main HTTP API suite, run by one small test file per setup: the answers must be the same
 * whether the server keeps its records and files in SQLite and on disk or in PostgreSQL and S3.
 */
export function apiSuite(setupName: SetupName): void {
  const missing = setupMissing(setupName);
  describe.skipIf(missing)(`HTTP API on ${missing ?? SETUP_TITLES[setupName]}`, () => {
    let setup: Setup;
    let server: TestServer;
    let base: string;

    beforeAll(async () => {
      setup = await startSetup(setupName);
      server = await startTestServer(await setup.stores());
      base = server.url;
    });
    afterAll(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
      await setup?.stop();
    });

    describe('detect', () => {
      it('reports declared and detected formats and files the request', async () => {
        const res = await post(`${base}/api/public/detect`, [filePart('table.csv', CSV, 'text/csv')]);
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({
          status: 'succeeded',
          report: { declared: 'csv', detected: 'csv', match: true, mime: 'text/csv' },
        });
        expect(res.json.report.confidence).toBeGreaterThan(0);
        expect(res.json.report.confidence).toBeLessThanOrEqual(1);
        expect(res.json.request_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(res.headers['x-owner-token']).toMatch(/^fco_[A-Za-z0-9_-]{43}$/);
        const read = await get(`${base}/api/public/requests/${res.json.request_id}`);
        expect(read.json).toMatchObject({ status: 'succeeded', kind: 'detect', report: { detected: 'csv' } });
      });

      it('says when the declared type and the bytes disagree', async () => {
        const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#f00' } })
          .png()
          .toBuffer();
        const res = await post(`${base}/api/public/detect`, [filePart('photo.jpg', png)]);
        expect(res.json.report).toMatchObject({
          declared: 'jpg',
          detected: 'png',
          match: false,
          mime: 'image/png',
        });
      });

      it('answers 422 INTAKE_FAILED when the file part is missing, whatever else was sent', async () => {
        for (const parts of [[], [{ name: 'declared', value: 'csv' }], [{ name: 'meta', value: '{}' }]]) {
          const res = await post(`${base}/api/public/detect`, parts);
          expect(res.status).toBe(422);
          expect(res.json.error.code).toBe('INTAKE_FAILED');
        }
      });
    });

    describe('convert, poll, download', () => {
      let id: string;
      let artifact: {
        name: string;
        download: string;
        size: number;
        sha256: string;
        mime: string;
        format: string;
        expires_at: string;
      };

      it('converts csv to json and lists the artifact', async () => {
        const res = await post(`${base}/api/public/convert`, [
          metaPart({ conversion: 'csv-json' }),
          filePart('fruit.csv', CSV),
        ]);
        expect(res.status).toBe(202);
        expect(res.json).toEqual({ request_id: expect.any(String), status: 'running' });
        id = res.json.request_id;
        const done = await waitDone(base, id);
        expect(done.status).toBe('succeeded');
        expect(done.progress).toMatchObject({ percent: 100, stage: 'done' });
        expect(done.artifacts).toHaveLength(1);
        artifact = done.artifacts[0];
        expect(artifact).toMatchObject({ name: 'json', format: 'json', mime: 'application/json' });
        expect(artifact.download).toBe(`${base}/api/public/requests/${id}/artifacts/json`);
        expect(Date.parse(artifact.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
      });

      it('redirects the artifact path to a signed link that serves the file', async () => {
        const redirect = await get(artifact.download);
        expect(redirect.status).toBe(302);
        const location = String(redirect.headers.location);
        expect(location).toMatch(/\/files\/[A-Za-z0-9_-]+\?expires=\d+&signature=[0-9a-f]{64}$/);
        const expires = Number(new URL(location).searchParams.get('expires'));
        expect(expires - Date.now() / 1000).toBeGreaterThan(3500);
        expect(expires - Date.now() / 1000).toBeLessThanOrEqual(3600);

        const file = await get(location);
        expect(file.status).toBe(200);
        expect(JSON.parse(file.text)).toEqual([
          { name: 'apple', qty: 3 },
          { name: 'pear', qty: 5 },
        ]);
        expect(file.headers['content-type']).toBe('application/json');
        expect(Number(file.headers['content-length'])).toBe(artifact.size);
        expect(file.headers['content-disposition']).toBe(
          `attachment; filename="fruit.json"; filename*=UTF-8''fruit.json`,
        );
        expect(file.headers['cache-control']).toBe('private, no-store');
        expect(createHash('sha256').update(file.text).digest('hex')).toBe(artifact.sha256);

        const part = await get(location, { range: 'bytes=0-4' });
        expect(part.status).toBe(206);
        expect(part.text).toBe(file.text.slice(0, 5));
        expect(part.headers['content-range']).toBe(`bytes 0-4/${artifact.size}`);
        const tail = await get(location, { range: 'bytes=-3' });
        expect(tail.status).toBe(206);
        expect(tail.text).toBe(file.text.slice(-3));
        const outside = await get(location, { range: `bytes=${artifact.size}-` });
        expect(outside.status).toBe(416);
        expect(outside.headers['content-range']).toBe(`bytes */${artifact.size}`);
      });

      it('refuses tampered, unsigned and expired links', async () => {
        const location = new URL(String((await get(artifact.download)).headers.location));
        const sig = location.searchParams.get('signature')!;
        const tampered = new URL(location);
        tampered.searchParams.set('signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
        expect((await get(tampered.href)).json.error.code).toBe('INVALID_SIGNATURE');
        const later = new URL(location);
        later.searchParams.set('expires', String(Number(location.searchParams.get('expires')) + 60));
        const res = await get(later.href);
        expect(res.status).toBe(403);
        expect(res.json.error.code).toBe('INVALID_SIGNATURE');
        expect((await get(`${base}${location.pathname}`)).json.error.code).toBe('INVALID_SIGNATURE');
        // This link's signature on another artifact's path: of another name, of another request.
        for (const other of [encodeOpaque(id, 'zip'), encodeOpaque(`${id.slice(0, -1)}x`, 'json')]) {
          const swapped = new URL(`${base}/files/${other}`);
          swapped.search = location.search;
          const answer = await get(swapped.href);
          expect(answer.status).toBe(403);
          expect(answer.json.error.code).toBe('INVALID_SIGNATURE');
        }
        // A correctly signed link whose hour is over.
        const opaque = encodeOpaque(id, 'json');
        const past = Math.floor(Date.now() / 1000) - 10;
        const expired = await get(
          `${base}/files/${opaque}?expires=${past}&signature=${server.context.signer.sign(opaque, past)}`,
        );
        expect(expired.status).toBe(403);
        expect(expired.json).toEqual({ error: { code: 'LINK_EXPIRED', message: expect.any(String) } });
      });

      it("keeps the request in the setup's records and its file in the setup's storage", async () => {
        const { dataDir, database, storage } = server.context.config;
        const distributed = setupName === 'postgres-s3';
        expect(database?.startsWith('postgres://') ?? false).toBe(distributed);
        expect(storage?.startsWith('s3://') ?? false).toBe(distributed);
        // A second view of the same places, opened apart from the server, through the store interfaces.
        const view = await openStores({ dataDir, database, storage }, () => {});
        try {
          expect(await view.records.requests.getRequest(id)).toMatchObject({ status: 'succeeded' });
          const [stored] = await view.records.requests.artifacts(id);
          expect(stored).toMatchObject({ format: 'json', size: artifact.size, sha256: artifact.sha256 });
          expect(await view.blobs.stat(stored!.blobKey)).toEqual({ size: artifact.size });
          expect(await view.blobs.list()).toContain(stored!.blobKey);
        } finally {
          await view.close();
        }
      });

      it('keeps a timeline as JSON and as text', async () => {
        const res = await get(`${base}/api/public/requests/${id}/timeline`);
        expect(res.json.request_id).toBe(id);
        const kinds = res.json.events.map((e: { kind: string }) => e.kind);
        // The run's own events, written with its end, come in the order they happened.
        expect(kinds.slice(0, 9)).toEqual([
          'received',
          'detected',
          'queued',
          'started',
          'encoding',
          'step-started',
          'engine-try',
          'step-done',
          'succeeded',
        ]);
        expect(kinds).toContain('downloaded');
        for (const e of res.json.events) {
          expect(Number.isNaN(Date.parse(e.at))).toBe(false);
          expect(e.message.length).toBeGreaterThan(5);
        }
        const text = await get(`${base}/api/public/requests/${id}/timeline`, { accept: 'text/plain' });
        expect(text.headers['content-type']).toMatch(/^text\/plain/);
        expect(text.text).toMatch(/received .*fruit\.csv/);
        expect(text.text.trim().split('\n')).toHaveLength(res.json.events.length);
      });

      it('converts png to webp with sharp', async () => {
        const png = await sharp({ create: { width: 32, height: 16, channels: 3, background: '#0a0' } })
          .png()
          .toBuffer();
        const rid = await submit(base, 'png-webp', 'green.png', png);
        const done = await waitDone(base, rid);
        expect(done.status).toBe('succeeded');
        const location = String((await get(done.artifacts[0].download)).headers.location);
        const res = await request(location);
        const bytes = Buffer.from(await res.body.arrayBuffer());
        expect(res.headers['content-type']).toBe('image/webp');
        expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
        expect(bytes.subarray(8, 12).toString()).toBe('WEBP');
        expect((await sharp(bytes).metadata()).width).toBe(32);
      });
    });

    describe('multi-page outputs', () => {
      it('converts docx to pdf with LibreOffice, then pdf pages to png-1, png-2 and a zip', async () => {
        const docx = await makeDocx(server.dataDir, 120);
        const pdfId = await submit(base, 'docx-pdf', 'long.docx', docx);
        const pdfDone = await waitDone(base, pdfId);
        expect(pdfDone.status).toBe('succeeded');
        const pdf = await request(String((await get(pdfDone.artifacts[0].download)).headers.location));
        const pdfBytes = Buffer.from(await pdf.body.arrayBuffer());
        expect(pdfBytes.subarray(0, 5).toString()).toBe('%PDF-');

        const res = await post(`${base}/api/public/convert`, [
          metaPart({ conversion: 'pdf-png', options: { pages: '1-2', dpi: 50 } }),
          filePart('long.pdf', pdfBytes, 'application/pdf'),
        ]);
        expect(res.status).toBe(202);
        const done = await waitDone(base, res.json.request_id);
        expect(done.status).toBe('succeeded');
        expect(done.artifacts.map((a: { name: string }) => a.name)).toEqual(['png-1', 'png-2', 'zip']);
        expect(done.artifacts[2]).toMatchObject({ format: 'zip', mime: 'application/zip' });
        const page = await get(String((await get(done.artifacts[1].download)).headers.location));
        expect(page.headers['content-type']).toBe('image/png');
        expect(page.headers['content-disposition']).toContain('filename="long-2.png"');
        const zip = await request(String((await get(done.artifacts[2].download)).headers.location));
        expect(
          Buffer.from(await zip.body.arrayBuffer())
            .subarray(0, 2)
            .toString(),
        ).toBe('PK');
      });
    });

    describe('several inputs merged into one PDF', () => {
      it('merges two PDFs and a PNG in order, with their inputs on the request and none kept after', async () => {
        const dir = join(server.dataDir, 'merge-inputs');
        mkdirSync(dir, { recursive: true });
        const a = readFileSync(await textPdf(dir, ['Merge alpha one', 'Merge alpha two'], 'a.pdf'));
        const b = readFileSync(await textPdf(dir, ['Merge bravo'], 'b.pdf'));
        const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a6' } })
          .png()
          .toBuffer();
        const res = await post(`${base}/api/public/convert`, [
          metaPart({ to: 'pdf' }),
          filePart('a.pdf', a, 'application/pdf'),
          filePart('pic.png', png, 'image/png'),
          filePart('b.pdf', b, 'application/pdf'),
        ]);
        expect(res.status).toBe(202);
        expect(res.json.inputs).toEqual([
          { name: 'a.pdf', format: 'pdf' },
          { name: 'pic.png', format: 'png' },
          { name: 'b.pdf', format: 'pdf' },
        ]);
        const done = await waitDone(base, res.json.request_id);
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
        expect(done).toMatchObject({ conversion: 'merge-pdf', inputs: res.json.inputs });
        const file = await request(String((await get(done.artifacts[0].download)).headers.location));
        const merged = join(dir, 'merged.pdf');
        writeFileSync(merged, Buffer.from(await file.body.arrayBuffer()));
        expect(pdfPages(merged)).toBe(4);
        expect(pageText(merged, 4)).toContain('Merge bravo');
        expect(outline(merged).map((i) => [i.title, i.page])).toEqual([
          ['a', 1],
          ['pic', 3],
          ['b', 4],
        ]);
        // Every input (disk or S3) is deleted once the request has ended.
        const { blobs, store } = server.context;
        const mine = (keys: Iterable<string>) =>
          [...keys].filter((k) => k.startsWith(`inputs/${done.request_id}`));
        await expect.poll(async () => mine(await store.liveBlobKeys())).toEqual([]);
        expect(mine(await blobs.list())).toEqual([]);
      });
    });

    describe('failed conversions', () => {
      // What a conversion whose one engine failed tells, its end and the quota refund last.
      const FAILED_TRAIL = [
        'received',
        'detected',
        'queued',
        'started',
        'encoding',
        'step-started',
        'engine-try',
        'engine-failed',
        'failed',
        'refunded',
      ];
      it('tells the whole trail of a small data conversion that failed, its end last', async () => {
        // A YAML alias bomb: a YAML file (intake lets it in) that the data engine refuses.
        const rid = await submit(base, 'yaml-json', 'bomb.yaml', yamlAliasBomb(6));
        const done = await waitDone(base, rid);
        expect(done).toMatchObject({ status: 'failed', error: { code: 'CONVERT_FAILED' } });
        expect(done.progress).toMatchObject({ stage: 'done' });
        await waitEvent(base, rid, 'refunded');
        const events: { kind: string; at: string; message: string }[] = (
          await get(`${base}/api/public/requests/${rid}/timeline`)
        ).json.events;
        expect(events.map((e) => e.kind)).toEqual(FAILED_TRAIL);
        expect(events[7]!.message).toMatch(/^data failed: .*aliases/);
        const times = events.map((e) => Date.parse(e.at));
        expect(times).toEqual([...times].sort((a, b) => a - b));
      });

      it('reports the detail code and answers the artifact path with 502', async () => {
        const rid = await submit(base, 'docx-pdf', 'broken.docx', UNREADABLE_BYTES);
        const done = await waitDone(base, rid);
        expect(done.status).toBe('failed');
        expect(done.error).toEqual({ code: 'MALFORMED_DOCUMENT', message: expect.any(String) });
        expect(done.artifacts).toBeUndefined();
        const res = await get(`${base}/api/public/requests/${rid}/artifacts/pdf`);
        expect(res.status).toBe(502);
        expect(res.json).toEqual({
          error: { code: 'CONVERT_FAILED', message: expect.any(String), detail: 'MALFORMED_DOCUMENT' },
        });
        await waitEvent(base, rid, 'refunded');
        const timeline = await get(`${base}/api/public/requests/${rid}/timeline`);
        // The trail tells the run in the order it happened and ends with the failure and, after
        // it, the refund of the quota unit (engine log lines may come between the steps).
        const events: { kind: string; at: string }[] = timeline.json.events;
        // A Word file is no text source: no encoding is decoded at the door.
        expect(events.map((e) => e.kind).filter((k) => k !== 'log')).toEqual(
          FAILED_TRAIL.filter((k) => k !== 'encoding'),
        );
        const times = events.map((e) => Date.parse(e.at));
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(timeline.text).not.toMatch(/\/tmp\/|fileconv-data|blobs\//);
      });
    });

    describe('read-only endpoints', () => {
      it('counts only conversions in the stats', async () => {
        const res = await get(`${base}/api/public/stats`);
        expect(res.status).toBe(200);
        const { last_24h, all_time, conversions } = res.json;
        expect(all_time.succeeded).toBeGreaterThanOrEqual(2);
        expect(all_time.failed).toBeGreaterThanOrEqual(1);
        expect(all_time.total).toBe(all_time.succeeded + all_time.failed);
        expect(last_24h.success_rate).toBeCloseTo(last_24h.succeeded / last_24h.total);
        const keys = conversions.map((c: { key: string }) => c.key);
        expect(keys).toEqual(expect.arrayContaining(['csv-json', 'png-webp', 'docx-pdf']));
        expect(keys).not.toContain(null);
      });

      it('lists the conversions and the catalog of installed engines', async () => {
        const conv = await get(`${base}/api/public/conversions`);
        expect(conv.json.conversions).toEqual(
          expect.arrayContaining([{ key: 'csv-json', from: 'csv', to: 'json', family: 'spreadsheet' }]),
        );
        const cat = await get(`${base}/api/public/catalog`);
        expect(cat.json.version).toMatch(/^\d+\.\d+\.\d+/);
        expect(cat.json.engines.map((e: { name: string }) => e.name)).toEqual(
          expect.arrayContaining(['sharp', 'libreoffice']),
        );
        expect(cat.json.keys['png-webp']).toEqual({
          family: 'image',
          lossy: expect.any(Boolean),
          steps: [{ from: 'png', to: 'webp', engine: expect.any(String) }],
          // The engines of png to webp (sharp, then imagemagick) declare these among their options.
          options: expect.arrayContaining(['quality', 'width', 'height', 'fit']),
        });
        expect(cat.json.keys['png-webp'].options).not.toContain('crf');
        expect(Object.keys(cat.json.keys).length).toBe(conv.json.conversions.length);
      });

      it('serves skill.md, healthz and readyz', async () => {
        const skill = await get(`${base}/skill.md`);
        expect(skill.headers['content-type']).toMatch(/^text\/markdown/);
        expect(skill.text).toContain('/api/public/convert');
        expect((await get(`${base}/healthz`)).json).toEqual({ status: 'ok' });
        const ready = await get(`${base}/readyz`);
        expect(ready.status).toBe(200);
        expect(ready.json).toMatchObject({ status: 'ready', database: 'ok' });
        expect(ready.json.engines).toBeGreaterThan(0);
      });
    });

    describe('recent requests of a device', () => {
      it('lists the requests filed under an owner token, newest first', async () => {
        const first = await post(`${base}/api/public/detect`, [filePart('a.csv', CSV)]);
        const token = String(first.headers['x-owner-token']);
        const second = await post(
          `${base}/api/public/convert`,
          [metaPart({ conversion: 'csv-json' }), filePart('b.csv', CSV)],
          {
            'x-owner-token': token,
          },
        );
        expect(second.headers['x-owner-token']).toBeUndefined();
        const res = await get(`${base}/api/public/requests/recent`, { 'x-owner-token': token });
        expect(res.status).toBe(200);
        expect(res.json.requests.map((r: { request_id: string }) => r.request_id)).toEqual([
          second.json.request_id,
          first.json.request_id,
        ]);
        expect(res.json.requests[0]).toMatchObject({
          conversion: 'csv-json',
          created_at: expect.any(String),
        });
        const one = await get(`${base}/api/public/requests/recent?limit=1`, { 'x-owner-token': token });
        expect(one.json.requests).toHaveLength(1);
        expect(
          (await get(`${base}/api/public/requests/recent?limit=1000`, { 'x-owner-token': token })).json
            .requests,
        ).toHaveLength(2);
        for (const bad of ['0', '-1', '2.5', 'ten']) {
          const r = await get(`${base}/api/public/requests/recent?limit=${bad}`, { 'x-owner-token': token });
          expect(r.status).toBe(400);
          expect(r.json.error.code).toBe('INVALID_REQUEST');
        }
        expect((await get(`${base}/api/public/requests/recent`)).json.error.code).toBe('INVALID_REQUEST');
      });
    });

    describe('routing errors', () => {
      it('answers unknown ids, names and routes with JSON 404s, and wrong methods with 405', async () => {
        const noRequest = await get(`${base}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA`);
        expect(noRequest.status).toBe(404);
        expect(noRequest.json.error.code).toBe('REQUEST_NOT_FOUND');
        expect(
          (await get(`${base}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA/timeline`)).json.error.code,
        ).toBe('REQUEST_NOT_FOUND');
        const rid = await submit(base, 'csv-json', 'x.csv', CSV);
        await waitDone(base, rid);
        const noArtifact = await get(`${base}/api/public/requests/${rid}/artifacts/pdf`);
        expect(noArtifact.status).toBe(404);
        expect(noArtifact.json.error.code).toBe('ARTIFACT_NOT_FOUND');
        const noRoute = await get(`${base}/api/public/nothing-here`);
        expect(noRoute.status).toBe(404);
        expect(noRoute.json).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
        const wrong = await get(`${base}/api/public/convert`);
        expect(wrong.status).toBe(405);
        expect(wrong.json.error.code).toBe('METHOD_NOT_ALLOWED');
        expect(wrong.headers.allow).toBe('POST');
        expect((await get(`${base}/api/public/stats`, {}, 'DELETE')).status).toBe(405);
        expect((await get(`${base}/api/public/requests/${rid}`, {}, 'POST')).status).toBe(405);
      });
    });
  });
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepExpired, sweepLeftInputs } from '../../src/server/jobs/retention.js';
import { jsonArtifact, queuedConversion } from '../support/records.js';
import {
  blobFiles,
  get,
  makeDocx,
  removeDir,
  startTestServer,
  submit,
  type TestServer,
  waitDone,
} from './helpers.js';

const CSV = 'a,b\n1,2\n';
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) {
    await s.stop();
    removeDir(s.dataDir);
  }
});

describe('retention', () => {
  it('expires artifacts after the retention period, and the sweep is safe to run twice', async () => {
    const server = await startTestServer({ retention: '1s' });
    servers.push(server);
    const id = await submit(server.url, 'csv-json', 'a.csv', CSV);
    const done = await waitDone(server.url, id);
    expect(done.status).toBe('succeeded');
    const link = String((await get(done.artifacts[0].download)).headers.location);
    // Inputs go as soon as the conversion ends.
    await expect.poll(() => blobFiles(server.dataDir).filter((f) => f.includes('/inputs/'))).toEqual([]);

    const later = Date.parse(done.artifacts[0].expires_at) + 1;
    // The server's sweeper runs on the real clock, and a finished request's answer is kept until
    // its artifacts' expiry (finished-answers.ts): let that moment pass, as it would in service.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, later - Date.now())));
    const { store, blobs } = server.context;
    const [first, second] = await Promise.all([
      sweepExpired(store, blobs, later),
      sweepExpired(store, blobs, later),
    ]);
    expect(first + second).toBeGreaterThanOrEqual(1);
    expect(await sweepExpired(store, blobs, later)).toBe(0);
    expect(blobFiles(server.dataDir)).toEqual([]);

    const read = await get(`${server.url}/api/public/requests/${id}`);
    expect(read.json.status).toBe('succeeded');
    expect(read.json.artifacts[0]).toMatchObject({ name: 'json', expired: true });
    expect(read.json.artifacts[0].download).toBeUndefined();
    const artifact = await get(done.artifacts[0].download);
    expect(artifact.status).toBe(404);
    expect(artifact.json.error.code).toBe('ARTIFACT_EXPIRED');
    const file = await get(link);
    expect(file.status).toBe(404);
    expect(file.json.error.code).toBe('ARTIFACT_EXPIRED');
    const kinds = (await get(`${server.url}/api/public/requests/${id}/timeline`)).json.events.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds.filter((k: string) => k === 'expired')).toHaveLength(1);
  });

  it('deletes the input of a request whose worker stopped between storing the end and deleting it', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { store, blobs } = server.context;
    // What such a worker leaves: the end stored, the input still on the request and in the store.
    const id = `left-input-${Date.now()}`;
    const upload = join(server.dataDir, 'upload.csv');
    writeFileSync(upload, CSV);
    await blobs.putFile(`inputs/${id}`, upload);
    await store.createRequest(queuedConversion(id, Date.now(), { queue: 'working' }), []);
    expect(await store.finishSucceeded(id, [jsonArtifact(id)], Date.now())).toBe(true);
    expect(await store.endedWithInput()).toEqual([expect.objectContaining({ id })]);

    expect(await sweepLeftInputs(store, blobs)).toBe(1);
    expect(await blobs.stat(`inputs/${id}`)).toBeUndefined();
    expect((await store.getRequest(id))?.inputKey).toBeUndefined();
    expect(await sweepLeftInputs(store, blobs)).toBe(0);
  });

  it('deletes orphan blob files at start-up and keeps live ones', async () => {
    const first = await startTestServer();
    const id = await submit(first.url, 'csv-json', 'a.csv', CSV);
    expect((await waitDone(first.url, id)).status).toBe('succeeded');
    await first.stop();
    mkdirSync(join(first.dataDir, 'blobs', 'inputs'), { recursive: true });
    writeFileSync(join(first.dataDir, 'blobs', 'inputs', 'leftover.part'), 'half an upload');
    writeFileSync(join(first.dataDir, 'blobs', 'artifacts', 'stray.bin'), 'nobody knows me');
    const again = await startTestServer({ dataDir: first.dataDir });
    servers.push(again);
    const left = blobFiles(again.dataDir).map((f) => f.slice(again.dataDir.length));
    expect(left).toEqual([expect.stringMatching(new RegExp(`^/blobs/artifacts/${id}/1/json\\.json$`))]);
    const done = await waitDone(again.url, id);
    expect((await get(String((await get(done.artifacts[0].download)).headers.location))).status).toBe(200);
  });
});

describe('queue', () => {
  it('answers 503 with Retry-After when the queue is full', async () => {
    const server = await startTestServer({ concurrency: '1', maxQueued: '1' });
    servers.push(server);
    const docx = await makeDocx(server.dataDir);
    const running = await submit(server.url, 'docx-pdf', 'a.docx', docx);
    const waiting = await submit(server.url, 'docx-pdf', 'b.docx', docx);
    const { post, filePart, metaPart } = await import('./helpers.js');
    const refused = await post(`${server.url}/api/public/convert`, [
      metaPart({ conversion: 'csv-json' }),
      filePart('c.csv', CSV),
    ]);
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe('CONVERT_API_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('60');
    const queued = (await get(`${server.url}/api/public/requests/${waiting}`)).json;
    expect(queued).toMatchObject({ status: 'running', progress: { stage: 'queued' } });
    expect((await waitDone(server.url, running)).status).toBe('succeeded');
    expect((await waitDone(server.url, waiting)).status).toBe('succeeded');
  });
});

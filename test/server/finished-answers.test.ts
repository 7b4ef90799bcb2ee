import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FinishedAnswers, MAX_KEEP_MS } from '../../src/server/http/finished-answers.js';
import type { ArtifactRecord, RequestRecord } from '../../src/store/types.js';
import { get, removeDir, startTestServer, submit, type TestServer, waitDone } from './helpers.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const BODY = new Uint8Array(Buffer.from('{"status":"succeeded"}'));

function record(status: RequestRecord['status'], id = 'r1'): RequestRecord {
  return { id, status } as RequestRecord;
}

function artifact(expiresAt: number, expired = false): ArtifactRecord {
  return { expiresAt, expired } as ArtifactRecord;
}

describe('kept answers of finished requests', () => {
  it('keeps a finished answer until its earliest live artifact expires', () => {
    const answers = new FinishedAnswers();
    const soon = NOW + 5_000;
    answers.keep(
      record('succeeded'),
      [artifact(NOW - 1, true), artifact(soon), artifact(soon + 1)],
      'b',
      BODY,
      NOW,
    );
    expect(answers.get('r1', 'b', NOW)).toBe(BODY);
    expect(answers.get('r1', 'b', soon - 1)).toBe(BODY);
    expect(answers.get('r1', 'b', soon)).toBeUndefined();
    expect(answers.size).toBe(0);
  });

  it('keeps an answer no longer than the bound that covers deletion by another node', () => {
    const answers = new FinishedAnswers();
    answers.keep(record('failed'), [], 'b', BODY, NOW);
    expect(answers.get('r1', 'b', NOW + MAX_KEEP_MS - 1)).toBe(BODY);
    expect(answers.get('r1', 'b', NOW + MAX_KEEP_MS)).toBeUndefined();
  });

  it('never keeps a running request, nor one whose artifact is already due', () => {
    const answers = new FinishedAnswers();
    answers.keep(record('running'), [], 'b', BODY, NOW);
    answers.keep(record('succeeded', 'r2'), [artifact(NOW)], 'b', BODY, NOW);
    expect(answers.get('r1', 'b', NOW)).toBeUndefined();
    expect(answers.get('r2', 'b', NOW)).toBeUndefined();
  });

  it('answers only for the base URL it was rendered for, forgets on demand, and stays bounded', () => {
    const answers = new FinishedAnswers(2);
    answers.keep(record('failed', 'a'), [], 'http://one', BODY, NOW);
    expect(answers.get('a', 'http://two', NOW)).toBeUndefined();
    answers.forget('a');
    expect(answers.get('a', 'http://one', NOW)).toBeUndefined();
    for (const id of ['x', 'y', 'z']) answers.keep(record('failed', id), [], 'b', BODY, NOW);
    expect(answers.size).toBe(2);
    expect(answers.get('x', 'b', NOW)).toBeUndefined();
    expect(answers.get('z', 'b', NOW)).toBe(BODY);
  });
});

describe('GET /api/public/requests/{id} with kept answers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  it('answers a finished request with the same bytes and headers each time', async () => {
    const id = await submit(server.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    const done = await waitDone(server.url, id);
    expect(done.status).toBe('succeeded');
    const first = await get(`${server.url}/api/public/requests/${id}`);
    const second = await get(`${server.url}/api/public/requests/${id}?wait=5`);
    expect(second.text).toBe(first.text);
    expect(JSON.parse(first.text)).toEqual(done);
    for (const a of [first, second]) {
      expect(a.status).toBe(200);
      expect(a.headers['content-type']).toBe('application/json');
      expect(a.headers['cache-control']).toBe('no-store');
    }
    // Download links carry the caller's base URL: another Host gets its own rendering.
    const other = await get(`${server.url}/api/public/requests/${id}`, { host: 'files.example:8080' });
    expect(other.json.artifacts[0].download).toMatch(
      /^http:\/\/files\.example:8080\/api\/public\/requests\//,
    );
    expect((await get(`${server.url}/api/public/requests/${id}`)).text).toBe(first.text);
  });

  it('reads a running request from the store every time, so a change made by another node shows at once', async () => {
    const { store } = server.context;
    const id = 'KeptAnswerRunning00001';
    await store.createRequest(
      {
        id,
        kind: 'convert',
        status: 'running',
        conversion: 'csv-json',
        from: 'csv',
        to: 'json',
        filename: 'elsewhere.csv',
        identity: 'ip:192.0.2.1',
        // Claimed by another node: this node's queue never picks it up.
        queue: 'working',
        progress: { percent: 40, stage: 'converting', step: 1, steps: 1 },
        createdAt: Date.now(),
      },
      [],
    );
    const running = await get(`${server.url}/api/public/requests/${id}`);
    expect(running.json).toMatchObject({ status: 'running', progress: { percent: 40 } });
    await store.updateProgress(id, { percent: 70, stage: 'converting', step: 1, steps: 1 }, Date.now());
    expect((await get(`${server.url}/api/public/requests/${id}`)).json.progress.percent).toBe(70);
    await store.finishFailed(id, { code: 'CONVERT_FAILED', message: 'The other node gave up.' }, Date.now());
    const failed = await get(`${server.url}/api/public/requests/${id}`);
    expect(failed.json).toMatchObject({ status: 'failed', error: { message: 'The other node gave up.' } });
    expect((await get(`${server.url}/api/public/requests/${id}`)).text).toBe(failed.text);
  });

  it('still refuses a bad wait and an unknown id', async () => {
    const id = await submit(server.url, 'csv-json', 'b.csv', 'a,b\n3,4\n');
    await waitDone(server.url, id);
    expect((await get(`${server.url}/api/public/requests/${id}?wait=abc`)).status).toBe(400);
    const unknown = await get(`${server.url}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('REQUEST_NOT_FOUND');
  });
});

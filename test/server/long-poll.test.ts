import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestChanges } from '../../src/server/jobs/request-changes.js';
import { get, makeDocx, removeDir, startTestServer, submit, type TestServer, tempDir } from './helpers.js';

let server: TestServer;

async function running(id: string): Promise<boolean> {
  return (await server.context.store.getRequest(id))?.status === 'running';
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}
let scratch: string;
beforeAll(async () => {
  // One slot, so the second conversion is surely still queued when the long poll starts.
  server = await startTestServer({ concurrency: '1' });
  scratch = tempDir('fileconv-longpoll-');
});
afterAll(async () => {
  await server.stop();
  removeDir(server.dataDir);
  removeDir(scratch);
});

describe('GET /api/public/requests/{id}?wait=N', () => {
  it('answers with the final status of a conversion that ends during the wait', async () => {
    const docx = await makeDocx(scratch);
    const first = await submit(server.url, 'docx-pdf', 'report.docx', docx);
    const second = await submit(server.url, 'csv-json', 'table.csv', 'name,qty\napple,3\npear,5\n');
    const res = await get(`${server.url}/api/public/requests/${second}?wait=30`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json.status).toBe('succeeded');
    expect(res.json.artifacts.map((a: { name: string }) => a.name)).toEqual(['json']);
    const before = await get(`${server.url}/api/public/requests/${first}?wait=30`);
    expect(before.json.status).toBe('succeeded');
  }, 120_000);

  it('lets go of a reader that hangs up during the wait', async () => {
    const docx = await makeDocx(scratch, 80);
    await submit(server.url, 'docx-pdf', 'long.docx', docx);
    const id = await submit(server.url, 'csv-json', 'later.csv', 'a,b\n1,2\n');
    const changes = server.context.queue.changes;
    const controller = new AbortController();
    const reading = request(`${server.url}/api/public/requests/${id}?wait=30`, {
      signal: controller.signal,
    }).catch(() => 'hung up');
    await until(async () => changes.waiting(id) === 1 || !(await running(id)));
    const hungUpWhileWaiting = changes.waiting(id) === 1;
    controller.abort();
    // Only if the conversions outran the reader could it have had its answer already.
    if (hungUpWhileWaiting) expect(await reading).toBe('hung up');
    await until(() => changes.waiting(id) === 0);
    expect(changes.waiting(id)).toBe(0);
  }, 120_000);

  it('answers a finished request at once, and wait=0 like a plain read', async () => {
    const id = await submit(server.url, 'csv-json', 'a.csv', 'a,b\n1,2\n');
    const done = await get(`${server.url}/api/public/requests/${id}?wait=30`);
    expect(done.json.status).toBe('succeeded');
    const again = await get(`${server.url}/api/public/requests/${id}?wait=0`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(done.json);
  }, 60_000);

  it('refuses a wait that is not a whole number of seconds from 0 to 30', async () => {
    const id = await submit(server.url, 'csv-json', 'b.csv', 'a,b\n1,2\n');
    for (const wait of ['31', '-1', 'abc', '1.5', '', '100']) {
      const res = await get(`${server.url}/api/public/requests/${id}?wait=${wait}`);
      expect({ wait, status: res.status, code: res.json?.error?.code }).toEqual({
        wait,
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
  });

  it('answers 404 for an unknown request even with a wait', async () => {
    const res = await get(`${server.url}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA?wait=5`);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('REQUEST_NOT_FOUND');
  });
});

describe('RequestChanges', () => {
  it('wakes a waiter on a change and leaves no listener behind', async () => {
    const changes = new RequestChanges();
    const woken = changes.waitFor('r1', 60_000).then(() => 'woken');
    changes.changed('r2');
    changes.changed('r1');
    expect(await woken).toBe('woken');
    // A second change with nobody waiting is harmless.
    changes.changed('r1');
  });

  it('lets an aborted client go', async () => {
    const changes = new RequestChanges();
    const controller = new AbortController();
    const waiting = changes.waitFor('r1', 60_000, controller.signal).then(() => 'released');
    controller.abort();
    expect(await waiting).toBe('released');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Setup, type SetupName, setupMissing, startSetup } from '../support/setups.js';
import {
  type Answer,
  filePart,
  get,
  metaPart,
  post,
  removeDir,
  startTestServer,
  type TestServer,
  UNREADABLE_BYTES,
  waitDone,
  waitEvent,
} from './helpers.js';

const CSV = 'name,qty\napple,3\npear,5\n';
const SETUPS: SetupName[] = ['sqlite-disk', 'postgres-s3'];

/** Headers that differ between any two answers (a clock, a fresh id or token, the connection). */
const UNSTABLE_HEADERS = ['date', 'x-request-id', 'x-owner-token', 'location', 'keep-alive', 'connection'];

/** One answer with what differs between any two servers (ids, times, links, its URL) made equal. */
function comparable(label: string, base: string, a: Answer): unknown {
  const headers = Object.fromEntries(
    Object.entries(a.headers).filter(([name]) => !UNSTABLE_HEADERS.includes(name)),
  );
  const text = JSON.stringify({ label, status: a.status, headers, body: a.json ?? a.text })
    .replaceAll(base, 'BASE')
    .replace(/[A-Za-z0-9_-]{22}/g, 'ID')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/;t=\d+/g, ';t=SECONDS');
  return JSON.parse(text);
}

/** The same requests, one after another, on one server: a detect, a conversion, a failure, reads. */
async function session(base: string): Promise<unknown[]> {
  const answers: unknown[] = [];
  const keep = (label: string, a: Answer) => answers.push(comparable(label, base, a));
  const detect = await post(`${base}/api/public/detect`, [filePart('t.csv', CSV)]);
  keep('detect', detect);
  const owner = { 'x-owner-token': String(detect.headers['x-owner-token']) };
  const convert = await post(
    `${base}/api/public/convert`,
    [metaPart({ conversion: 'csv-json' }), filePart('f.csv', CSV)],
    owner,
  );
  keep('convert', convert);
  const id = convert.json.request_id;
  await waitDone(base, id);
  keep('request', await get(`${base}/api/public/requests/${id}`));
  const redirect = await get(`${base}/api/public/requests/${id}/artifacts/json`);
  keep('artifact', redirect);
  const link = String(redirect.headers.location);
  keep('file', await get(link));
  keep('file head', await get(link, {}, 'HEAD'));
  keep('file range', await get(link, { range: 'bytes=2-5' }));
  keep('timeline', await get(`${base}/api/public/requests/${id}/timeline`));
  keep('timeline text', await get(`${base}/api/public/requests/${id}/timeline`, { accept: 'text/plain' }));
  const broken = await post(
    `${base}/api/public/convert`,
    [metaPart({ conversion: 'docx-pdf' }), filePart('b.docx', UNREADABLE_BYTES)],
    owner,
  );
  await waitDone(base, broken.json.request_id);
  await waitEvent(base, broken.json.request_id, 'refunded');
  keep('failed', await get(`${base}/api/public/requests/${broken.json.request_id}`));
  keep('failed artifact', await get(`${base}/api/public/requests/${broken.json.request_id}/artifacts/pdf`));
  keep('failed timeline', await get(`${base}/api/public/requests/${broken.json.request_id}/timeline`));
  keep('recent', await get(`${base}/api/public/requests/recent`, owner));
  keep('stats', await get(`${base}/api/public/stats`));
  keep('readyz', await get(`${base}/readyz`));
  keep('long poll', await get(`${base}/api/public/requests/${id}?wait=1`));
  keep('unknown', await get(`${base}/api/public/requests/AAAAAAAAAAAAAAAAAAAAAA`));
  keep(
    'bad conversion',
    await post(`${base}/api/public/convert`, [metaPart({ conversion: 'nope-x' }), filePart('f.csv', CSV)]),
  );
  return answers;
}

describe.skipIf(setupMissing('postgres-s3'))('SQLite + disk and PostgreSQL + S3', () => {
  const setups: Setup[] = [];
  const servers: TestServer[] = [];
  beforeAll(async () => {
    for (const name of SETUPS) {
      const setup = await startSetup(name);
      setups.push(setup);
      servers.push(await startTestServer(await setup.stores()));
    }
  });
  afterAll(async () => {
    for (const server of servers) {
      await server.stop();
      removeDir(server.dataDir);
    }
    for (const setup of setups) await setup.stop();
  });

  it('give the same answers, header for header, to the same requests', async () => {
    const [embedded, distributed] = [await session(servers[0]!.url), await session(servers[1]!.url)];
    expect(embedded.length).toBeGreaterThan(15);
    for (const [i, answer] of embedded.entries()) expect(distributed[i]).toEqual(answer);
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceEncoding } from '../../src/detect/text/encoding.js';
import { tempDir } from '../helpers/step.js';
import {
  filePart,
  get,
  metaPart,
  post,
  startTestServer,
  type TestServer,
  waitDone,
} from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/fileconv', import.meta.url));
const ROWS = [
  { name: 'Zażółć', city: 'Łódź' },
  { name: 'źdźbło', city: 'Gdańsk' },
];
// Polish in ISO-8859-2, two short rows: detection reads it as another code page, so only the
// option reads it right.
const CSV = execFileSync('iconv', ['-f', 'UTF-8', '-t', 'ISO-8859-2'], {
  input: `name,city\n${ROWS.map((r) => `${r.name},${r.city}`).join('\n')}\n`,
});

describe('the encoding option', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const convert = (options: unknown, name = 'people.csv', body: Buffer = CSV, conversion = 'csv-json') =>
    post(`${server.url}/api/public/convert`, [metaPart({ conversion, options }), filePart(name, body)]);

  it('is needed: the guess for this file is another encoding', () => {
    expect(sourceEncoding(CSV, 'csv').encoding).not.toBe('iso-8859-2');
  });

  it('reads the source in the named encoding through the CLI (-O encoding=...)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'people.csv'), CSV);
    const r = await execa('node', [BIN, 'convert', 'people.csv', '-t', 'json', '-O', 'encoding=ISO-8859-2'], {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'people.json'), 'utf8'))).toEqual(ROWS);
  }, 240_000);

  it('reads the source in the named encoding through the API (options.encoding), and the timeline says so', async () => {
    const res = await convert({ encoding: 'latin2' });
    expect(res.status, res.text).toBe(202);
    const id = res.json.request_id;
    const done = await waitDone(server.url, id);
    expect(done.status).toBe('succeeded');
    const first = await get(done.artifacts[0].download);
    const body = await get(new URL(String(first.headers.location), server.url).href);
    expect(JSON.parse(body.text)).toEqual(ROWS);
    const timeline = await get(`${server.url}/api/public/requests/${id}/timeline`);
    const events = timeline.json.events as { kind: string; message: string }[];
    expect(events.find((e) => e.kind === 'encoding')?.message).toBe(
      'the csv source is read as iso-8859-2 (as the encoding option says)',
    );
    // The door reads the option; no step is said to ignore it.
    expect(events.some((e) => e.kind === 'options')).toBe(false);
  });

  it('answers 400 INVALID_REQUEST for an encoding no decoder knows', async () => {
    const res = await convert({ encoding: 'klingon-8' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_REQUEST');
    expect(res.json.error.message).toMatch(/option encoding must be an encoding name/);
  });

  it('answers 400 INVALID_REQUEST when the source is not text', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
      'base64',
    );
    const res = await convert({ encoding: 'windows-1251' }, 'dot.png', png, 'png-jpg');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_REQUEST');
    expect(res.json.error.message).toMatch(/option encoding does not apply/);
  });
});
